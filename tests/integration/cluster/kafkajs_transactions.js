// kafkajs transactions across brokers (tests/integration/cluster/test_kafkajs.py): one
// transactional producer writes to every partition in three transactions, committed,
// aborted and committed, its coordinator on one broker and its partitions led by all three;
// then a read_committed consumer group (kafkajs's default isolation) reads them back.
// Usage: node kafkajs_transactions.js BOOTSTRAP TOPIC GROUP TRANSACTIONAL_ID PARTITIONS
// Prints one JSON object: the values committed and those consumed, as [partition, value].
const { Kafka, logLevel } = require('kafkajs');

async function main() {
  const [bootstrap, topic, group, transactionalId, partitionsText] = process.argv.slice(2);
  const partitions = Number(partitionsText);
  const kafka = new Kafka({ clientId: 'odradek-cluster-txn-test', brokers: bootstrap.split(','), logLevel: logLevel.WARN });

  const producer = kafka.producer({ transactionalId, idempotent: true, maxInFlightRequests: 1 });
  await producer.connect();
  const committed = [];
  for (const [round, commit] of [['one', true], ['aborted', false], ['two', true]]) {
    const txn = await producer.transaction();
    const values = [];
    for (let i = 0; i < 3 * partitions; i++) values.push([i % partitions, `${round}-${i}`]);
    for (const [partition, value] of values) {
      await txn.send({ topic, acks: -1, messages: [{ value, partition }] });
    }
    if (commit) {
      await txn.commit();
      committed.push(...values);
    } else {
      await txn.abort();
    }
  }
  await producer.disconnect();

  // The aborted records sit before the second commit's in every partition: reading every
  // committed record means having read past them.
  const consumer = kafka.consumer({ groupId: group });
  await consumer.connect();
  await consumer.subscribe({ topic, fromBeginning: true });
  const consumed = [];
  await new Promise((resolve, reject) => {
    consumer.run({
      eachMessage: async ({ partition, message }) => {
        consumed.push([partition, message.value.toString()]);
        if (consumed.length >= committed.length) resolve();
      },
    }).catch(reject);
  });
  await consumer.disconnect();
  process.stdout.write(JSON.stringify({ committed, consumed }) + '\n');
}

main().catch((err) => {
  process.stderr.write(`${err.stack || err}\n`);
  process.exit(1);
});
