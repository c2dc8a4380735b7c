// kafkajs against the cluster (tests/integration/cluster/test_kafkajs.py): an idempotent
// producer and a consumer group, both started from one broker's address.
// Usage: node kafkajs_round_trip.js BOOTSTRAP TOPIC GROUP COUNT PARTITIONS
// Prints one JSON object: the produced (partition, offset) pairs and the consumed records.
const { Kafka, logLevel } = require('kafkajs');

async function main() {
  const [bootstrap, topic, group, countText, partitionsText] = process.argv.slice(2);
  const count = Number(countText);
  const partitions = Number(partitionsText);
  const kafka = new Kafka({ clientId: 'odradek-cluster-test', brokers: bootstrap.split(','), logLevel: logLevel.WARN });

  const producer = kafka.producer({ idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  const produced = [];
  for (let i = 0; i < count; i++) {
    const [meta] = await producer.send({
      topic, acks: -1, messages: [{ key: `k${i}`, value: `v${i}`, partition: i % partitions }],
    });
    produced.push([meta.partition, Number(meta.baseOffset)]);
  }
  await producer.disconnect();

  const consumer = kafka.consumer({ groupId: group });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const consumed = [];
  await new Promise((resolve, reject) => {
    consumer.run({
      eachMessage: async ({ partition, message }) => {
        consumed.push([partition, Number(message.offset), message.key.toString(), message.value.toString()]);
        if (consumed.length === count) resolve();
      },
    }).catch(reject);
  });
  // Commits what was consumed (kafkajs commits resolved offsets on stop).
  await consumer.disconnect();

  const admin = kafka.admin();
  await admin.connect();
  const committed = await admin.fetchOffsets({ groupId: group, topics: [topic] });
  await admin.disconnect();
  const offsets = committed[0].partitions.map((p) => [p.partition, Number(p.offset)]);
  process.stdout.write(JSON.stringify({ produced, consumed, committed: offsets }) + '\n');
}

main().catch((err) => {
  process.stderr.write(`${err.stack || err}\n`);
  process.exit(1);
});
