// Transactions as a Java user writes them: commit and abort read back read_committed and
// read_uncommitted, a producer fenced by a second one with its transactional id,
// consume-transform-produce with sendOffsetsToTransaction, Admin.fenceProducers, and what
// describeTransactions/listTransactions show along the way. The 4.3 client speaks
// transaction version 2 when the broker finalizes it. Prints key=value lines for
// tests/integration/java/test_transactions.py.
// Usage: java -cp 'jars/*' Transactions.java BOOTSTRAP PREFIX
import java.time.Duration;
import java.util.*;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.*;
import org.apache.kafka.clients.consumer.*;
import org.apache.kafka.clients.producer.*;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.*;

public class Transactions {
    static String bootstrap, prefix;

    static void out(String key, Object value) { System.out.println(key + "=" + value); }

    static String error(Throwable e) {
        Throwable c = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
        return c.getClass().getSimpleName();
    }

    static Producer<String, String> producer(String transactionalId) {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("transactional.id", transactionalId);
        p.put("max.block.ms", "20000");
        return new KafkaProducer<>(p, new StringSerializer(), new StringSerializer());
    }

    // Everything up to the end offset the isolation level allows (the LSO for read_committed).
    static List<String> read(String topic, String isolation) {
        Properties c = new Properties();
        c.put("bootstrap.servers", bootstrap);
        c.put("isolation.level", isolation);
        c.put("enable.auto.commit", "false");
        List<String> got = new ArrayList<>();
        try (Consumer<String, String> consumer = new KafkaConsumer<>(c, new StringDeserializer(), new StringDeserializer())) {
            TopicPartition tp = new TopicPartition(topic, 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long end = consumer.endOffsets(List.of(tp)).get(tp);
            long deadline = System.currentTimeMillis() + 15_000;
            while (consumer.position(tp) < end && System.currentTimeMillis() < deadline) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) got.add(r.offset() + ":" + r.value());
            }
        }
        return got;
    }

    // Once the markers are written (EndTxn answers before), so that the state shown is settled.
    static void describe(Admin admin, String key, String transactionalId) throws Exception {
        TransactionDescription d;
        long deadline = System.currentTimeMillis() + 10_000;
        do {
            d = admin.describeTransactions(List.of(transactionalId)).description(transactionalId).get();
        } while (d.state().toString().startsWith("Prepare") && System.currentTimeMillis() < deadline && sleep());
        out(key + ".state", d.state());
        out(key + ".epoch", d.producerEpoch());
        out(key + ".partitions", d.topicPartitions().size());
        out(key + ".started", d.transactionStartTimeMs().isPresent() ? d.transactionStartTimeMs().getAsLong() : "none");
    }

    static boolean sleep() {
        try { Thread.sleep(50); } catch (InterruptedException e) { throw new RuntimeException(e); }
        return true;
    }

    public static void main(String[] args) throws Exception {
        bootstrap = args[0];
        prefix = args[1];
        Properties common = new Properties();
        common.put("bootstrap.servers", bootstrap);
        try (Admin admin = Admin.create(common)) {
            admin.createTopics(List.of(new NewTopic(prefix + "-out", 1, (short) 1), new NewTopic(prefix + "-in", 1, (short) 1),
                    new NewTopic(prefix + "-ctp", 1, (short) 1), new NewTopic(prefix + "-del", 1, (short) 1))).all().get();
            FinalizedVersionRange tv = admin.describeFeatures().featureMetadata().get().finalizedFeatures().get("transaction.version");
            out("tv", tv == null ? 0 : tv.maxVersionLevel());
            commitAndAbort(admin);
            fencing(admin);
            consumeTransformProduce(admin);
            fenceProducers(admin);
            offsetsAfterDeletingToAMarker(admin);
        }
    }

    static void commitAndAbort(Admin admin) throws Exception {
        String topic = prefix + "-out", tid = prefix + "-a";
        try (Producer<String, String> p = producer(tid)) {
            p.initTransactions();
            describe(admin, "a.init", tid);
            p.beginTransaction();
            for (int i = 0; i < 3; i++) p.send(new ProducerRecord<>(topic, 0, null, "c" + i));
            p.flush();
            describe(admin, "a.open", tid);
            p.commitTransaction();
            describe(admin, "a.committed", tid);
            p.beginTransaction();
            for (int i = 0; i < 2; i++) p.send(new ProducerRecord<>(topic, 0, null, "x" + i));
            p.flush();
            p.abortTransaction();
            describe(admin, "a.aborted", tid);
            p.beginTransaction();
            p.send(new ProducerRecord<>(topic, 0, null, "c3"));
            p.commitTransaction();
        }
        out("a.read_committed", String.join(",", read(topic, "read_committed")));
        out("a.read_uncommitted", String.join(",", read(topic, "read_uncommitted")));
        var listed = admin.listTransactions().all().get();
        for (TransactionListing l : listed) if (l.transactionalId().equals(tid)) out("a.listed", l.state());
    }

    static void fencing(Admin admin) throws Exception {
        String topic = prefix + "-out", tid = prefix + "-f";
        try (Producer<String, String> first = producer(tid); Producer<String, String> second = producer(tid)) {
            first.initTransactions();
            first.beginTransaction();
            first.send(new ProducerRecord<>(topic, 0, null, "fenced")).get();
            describe(admin, "f.open", tid);
            second.initTransactions();
            describe(admin, "f.second", tid);
            try {
                first.send(new ProducerRecord<>(topic, 0, null, "late")).get();
                out("f.first.send", "ok");
            } catch (Exception e) {
                out("f.first.send", error(e));
                out("f.first.send.message", (e.getCause() != null ? e.getCause() : e).getMessage());
            }
            try {
                first.commitTransaction();
                out("f.first.commit", "ok");
            } catch (Exception e) {
                out("f.first.commit", error(e));
                out("f.first.commit.message", e.getMessage());
            }
            second.beginTransaction();
            second.send(new ProducerRecord<>(topic, 0, null, "second"));
            second.commitTransaction();
            describe(admin, "f.done", tid);
        }
    }

    static void consumeTransformProduce(Admin admin) throws Exception {
        String in = prefix + "-in", outTopic = prefix + "-ctp", group = prefix + "-g", tid = prefix + "-t";
        Properties plain = new Properties();
        plain.put("bootstrap.servers", bootstrap);
        try (Producer<String, String> p = new KafkaProducer<>(plain, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < 4; i++) p.send(new ProducerRecord<>(in, 0, null, "in" + i));
        }
        Properties c = new Properties();
        c.put("bootstrap.servers", bootstrap);
        c.put("group.id", group);
        c.put("isolation.level", "read_committed");
        c.put("enable.auto.commit", "false");
        c.put("auto.offset.reset", "earliest");
        try (Consumer<String, String> consumer = new KafkaConsumer<>(c, new StringDeserializer(), new StringDeserializer());
             Producer<String, String> p = producer(tid)) {
            p.initTransactions();
            consumer.subscribe(List.of(in));
            List<ConsumerRecord<String, String>> got = new ArrayList<>();
            long deadline = System.currentTimeMillis() + 20_000;
            while (got.size() < 4 && System.currentTimeMillis() < deadline) consumer.poll(Duration.ofMillis(200)).forEach(got::add);
            out("ctp.consumed", got.size());
            TopicPartition tp = new TopicPartition(in, 0);
            p.beginTransaction();
            for (var r : got.subList(0, 2)) p.send(new ProducerRecord<>(outTopic, 0, null, r.value().toUpperCase()));
            p.sendOffsetsToTransaction(Map.of(tp, new OffsetAndMetadata(2)), consumer.groupMetadata());
            p.commitTransaction();
            p.beginTransaction();
            for (var r : got.subList(2, 4)) p.send(new ProducerRecord<>(outTopic, 0, null, r.value().toUpperCase()));
            p.sendOffsetsToTransaction(Map.of(tp, new OffsetAndMetadata(4)), consumer.groupMetadata());
            p.abortTransaction();
            var committed = consumer.committed(Set.of(tp));
            out("ctp.committed", committed.get(tp) == null ? "none" : committed.get(tp).offset());
        }
        var offsets = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
        out("ctp.admin.committed", offsets.get(new TopicPartition(in, 0)).offset());
        out("ctp.output", String.join(",", read(outTopic, "read_committed")));
    }

    static void fenceProducers(Admin admin) throws Exception {
        String topic = prefix + "-out", tid = prefix + "-x";
        try (Producer<String, String> p = producer(tid)) {
            p.initTransactions();
            p.beginTransaction();
            p.send(new ProducerRecord<>(topic, 0, null, "to-fence")).get();
            TransactionDescription before = admin.describeTransactions(List.of(tid)).description(tid).get();
            describe(admin, "x.open", tid);
            admin.fenceProducers(List.of(tid)).all().get();
            describe(admin, "x.fenced", tid);
            TransactionDescription after = admin.describeTransactions(List.of(tid)).description(tid).get();
            out("x.start_kept", before.transactionStartTimeMs().equals(after.transactionStartTimeMs()));
            try {
                p.commitTransaction();
                out("x.commit", "ok");
            } catch (Exception e) {
                out("x.commit", error(e));
                out("x.commit.message", e.getMessage());
            }
        }
        out("x.read_committed", String.join(",", read(topic, "read_committed")));
    }

    // An aborted transaction (0-2, abort marker 3) and a committed one with older timestamps
    // (4-5, commit marker 6); records deleted up to the abort marker, then past it. As
    // offset/timestamp, or the offset alone where the timestamp is a marker's (the time
    // it was written).
    static void offsetsAfterDeletingToAMarker(Admin admin) throws Exception {
        String topic = prefix + "-del", tid = prefix + "-d";
        TopicPartition tp = new TopicPartition(topic, 0);
        long t = 1_700_000_000_000L;
        try (Producer<String, String> p = producer(tid)) {
            p.initTransactions();
            p.beginTransaction();
            for (int i = 0; i < 3; i++) p.send(new ProducerRecord<>(topic, 0, t + i * 10, "k", "a" + i));
            p.flush();
            p.abortTransaction();
            p.beginTransaction();
            for (int i = 0; i < 2; i++) p.send(new ProducerRecord<>(topic, 0, t + 100 + i * 10, "k", "c" + i));
            p.flush();
            p.commitTransaction();
        }
        describe(admin, "d.committed", tid);
        for (long cut : new long[] {3, 4}) {
            out("d." + cut + ".delete", admin.deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(cut))).lowWatermarks().get(tp).get().lowWatermark());
            Map<String, OffsetSpec> specs = new TreeMap<>(Map.of("earliest", OffsetSpec.earliest(), "latest", OffsetSpec.latest(),
                    "max", OffsetSpec.maxTimestamp(), "t0", OffsetSpec.forTimestamp(t), "t105", OffsetSpec.forTimestamp(t + 105)));
            for (var spec : specs.entrySet()) {
                for (IsolationLevel iso : IsolationLevel.values()) {
                    var info = admin.listOffsets(Map.of(tp, spec.getValue()), new ListOffsetsOptions(iso)).partitionResult(tp).get();
                    boolean ownTimestamp = info.timestamp() < t + 1000;
                    out("d." + cut + "." + spec.getKey() + "." + iso, info.offset() + (ownTimestamp ? "/" + info.timestamp() : ""));
                }
            }
        }
    }
}
