// Idempotent produce with each codec, read back, and the producer state the broker keeps
// (Admin.describeProducers). Prints key=value lines that tests/integration/java/test_produce.py checks.
// Usage: java -cp 'jars/*' Produce.java BOOTSTRAP PREFIX
import java.time.Duration;
import java.util.*;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.*;
import org.apache.kafka.clients.consumer.*;
import org.apache.kafka.clients.producer.*;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.*;

public class Produce {
    static final String[] CODECS = {"none", "gzip", "snappy", "lz4", "zstd"};
    // CreateTime of the records: fixed, so that what the broker reports can be checked exactly.
    static final long T0 = 1_700_000_000_000L;

    static void out(String key, Object value) { System.out.println(key + "=" + value); }

    static String error(Throwable e) {
        Throwable c = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
        return "!" + c.getClass().getSimpleName() + ": " + c.getMessage();
    }

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0], prefix = args[1];
        Properties common = new Properties();
        common.put("bootstrap.servers", bootstrap);
        try (Admin admin = Admin.create(common)) {
            List<NewTopic> topics = new ArrayList<>();
            for (String codec : CODECS) topics.add(new NewTopic(prefix + "-" + codec, 1, (short) 1));
            admin.createTopics(topics).all().get();
            for (String codec : CODECS) {
                String topic = prefix + "-" + codec;
                try {
                    produce(bootstrap, topic, codec);
                    consume(bootstrap, topic, codec);
                    producers(admin, topic, codec);
                } catch (Exception e) {
                    out(codec + ".error", error(e));
                }
            }
            refusals(admin, bootstrap, prefix);
        }
    }

    // What Kafka refuses and how the client words it (the broker sends no text for these).
    static void refusals(Admin admin, String bootstrap, String prefix) throws Exception {
        String small = prefix + "-small";
        admin.createTopics(List.of(new NewTopic(small, 1, (short) 1).configs(Map.of("max.message.bytes", "2000")))).all().get();
        // A group lookup (FindCoordinator) creates __consumer_offsets, if no group has yet.
        admin.listConsumerGroupOffsets(prefix + "-g").partitionsToOffsetAndMetadata().get();
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("delivery.timeout.ms", "10000");
        p.put("request.timeout.ms", "5000");
        try (Producer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            for (var target : List.of(new String[] {"toolarge", small}, new String[] {"internal", "__consumer_offsets"})) {
                try {
                    producer.send(new ProducerRecord<>(target[1], 0, "k", "x".repeat(5000))).get();
                    out("refused." + target[0], "accepted");
                } catch (Exception e) {
                    out("refused." + target[0], error(e));
                }
            }
        }
    }

    static void produce(String bootstrap, String topic, String codec) throws Exception {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("enable.idempotence", "true");
        p.put("acks", "all");
        p.put("compression.type", codec);
        p.put("linger.ms", "50");
        try (Producer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            List<java.util.concurrent.Future<RecordMetadata>> sent = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                ProducerRecord<String, String> r = new ProducerRecord<>(topic, 0, T0 + i, "k" + i, codec + "-" + i);
                r.headers().add("h", ("v" + i).getBytes());
                sent.add(producer.send(r));
            }
            producer.flush();
            // A batch of its own last: its CreateTime is what DescribeProducers reports.
            sent.add(producer.send(new ProducerRecord<>(topic, 0, T0 + 100, "last", codec + "-last")));
            producer.flush();
            StringBuilder offsets = new StringBuilder();
            for (var f : sent) offsets.append(offsets.length() == 0 ? "" : ",").append(f.get().offset());
            out(codec + ".offsets", offsets);
        }
    }

    static void consume(String bootstrap, String topic, String codec) {
        Properties c = new Properties();
        c.put("bootstrap.servers", bootstrap);
        c.put("enable.auto.commit", "false");
        try (Consumer<String, String> consumer = new KafkaConsumer<>(c, new StringDeserializer(), new StringDeserializer())) {
            TopicPartition tp = new TopicPartition(topic, 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            List<String> got = new ArrayList<>();
            long deadline = System.currentTimeMillis() + 15_000;
            while (got.size() < 11 && System.currentTimeMillis() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    Header h = r.headers().lastHeader("h");
                    got.add(r.offset() + ":" + r.key() + ":" + r.value() + ":" + r.timestamp()
                            + (h == null ? "" : ":" + new String(h.value())));
                }
            }
            out(codec + ".records", String.join("|", got));
        }
    }

    static void producers(Admin admin, String topic, String codec) throws Exception {
        TopicPartition tp = new TopicPartition(topic, 0);
        var states = admin.describeProducers(List.of(tp)).partitionResult(tp).get().activeProducers();
        out(codec + ".producers", states.size());
        for (ProducerState s : states) {
            out(codec + ".producer.epoch", s.producerEpoch());
            out(codec + ".producer.lastSequence", s.lastSequence());
            out(codec + ".producer.lastTimestamp", s.lastTimestamp());
            out(codec + ".producer.txnStartOffset", s.currentTransactionStartOffset());
            out(codec + ".producer.coordinatorEpoch", s.coordinatorEpoch());
        }
    }
}
