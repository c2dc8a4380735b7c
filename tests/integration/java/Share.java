// Share groups (KIP-932) as a Java user runs them with KafkaShareConsumer: two consumers share
// one partition (implicit acknowledgement), then explicit acknowledgement: a released record comes
// back with delivery count 2, a rejected one never. Prints key=value lines for
// tests/integration/java/test_share.py.
// Usage: java -cp 'jars/*' Share.java BOOTSTRAP PREFIX
import java.time.Duration;
import java.util.*;
import org.apache.kafka.clients.admin.*;
import org.apache.kafka.clients.consumer.*;
import org.apache.kafka.clients.producer.*;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.*;

public class Share {
    static String bootstrap, prefix;

    static void out(String key, Object value) { System.out.println(key + "=" + value); }

    static KafkaShareConsumer<String, String> consumer(String group, boolean explicit) {
        Properties c = new Properties();
        c.put("bootstrap.servers", bootstrap);
        c.put("group.id", group);
        c.put("share.acknowledgement.mode", explicit ? "explicit" : "implicit");
        c.put("max.poll.records", "10");
        return new KafkaShareConsumer<>(c, new StringDeserializer(), new StringDeserializer());
    }

    static void earliest(Admin admin, String group) throws Exception {
        ConfigResource r = new ConfigResource(ConfigResource.Type.GROUP, group);
        AlterConfigOp op = new AlterConfigOp(new ConfigEntry("share.auto.offset.reset", "earliest"), AlterConfigOp.OpType.SET);
        admin.incrementalAlterConfigs(Map.of(r, List.of(op))).all().get();
    }

    static void produce(String topic, int from, int to, int batch) throws Exception {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("linger.ms", "5");
        try (Producer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            for (int i = from; i < to; i++) {
                producer.send(new ProducerRecord<>(topic, 0, "k" + i, "v" + i));
                if ((i + 1) % batch == 0) producer.flush();
            }
        }
    }

    public static void main(String[] args) throws Exception {
        bootstrap = args[0];
        prefix = args[1];
        Properties common = new Properties();
        common.put("bootstrap.servers", bootstrap);
        try (Admin admin = Admin.create(common)) {
            String topic = prefix + "-t";
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get();
            produce(topic, 0, 100, 10);
            shared(admin, topic, prefix + "-g1");
            acknowledgements(admin, topic, prefix + "-g2");
        }
    }

    static void shared(Admin admin, String topic, String group) throws Exception {
        earliest(admin, group);
        Map<Long, Integer> deliveries = new TreeMap<>();
        int a = 0, b = 0;
        try (KafkaShareConsumer<String, String> ca = consumer(group, false);
             KafkaShareConsumer<String, String> cb = consumer(group, false)) {
            ca.subscribe(List.of(topic));
            cb.subscribe(List.of(topic));
            long deadline = System.currentTimeMillis() + 60_000;
            while (deliveries.size() < 100 && System.currentTimeMillis() < deadline) {
                for (ConsumerRecord<String, String> r : ca.poll(Duration.ofMillis(200))) {
                    deliveries.merge(r.offset(), 1, Integer::sum);
                    a++;
                }
                for (ConsumerRecord<String, String> r : cb.poll(Duration.ofMillis(200))) {
                    deliveries.merge(r.offset(), 1, Integer::sum);
                    b++;
                }
            }
            ca.commitSync();
            cb.commitSync();
            int again = ca.poll(Duration.ofMillis(500)).count() + cb.poll(Duration.ofMillis(500)).count();
            out("shared.distinct", deliveries.size());
            out("shared.total", a + b);
            out("shared.both", a > 0 && b > 0);
            out("shared.again", again);
            ShareGroupDescription d = admin.describeShareGroups(List.of(group)).all().get().get(group);
            out("shared.state", d.groupState());
            out("shared.members", d.members().size());
        }
    }

    static void acknowledgements(Admin admin, String topic, String group) throws Exception {
        earliest(admin, group);
        try (KafkaShareConsumer<String, String> c = consumer(group, true)) {
            c.subscribe(List.of(topic));
            List<String> firstSeen = new ArrayList<>();
            List<String> second = new ArrayList<>();
            long deadline = System.currentTimeMillis() + 60_000;
            boolean first = true;
            Set<Long> done = new TreeSet<>();
            while (done.size() < 100 && System.currentTimeMillis() < deadline) {
                for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(200))) {
                    int count = r.deliveryCount().map(Short::intValue).orElse(-1);
                    if (r.offset() == 0) {
                        firstSeen.add(count + "");
                        // Offset 0: released once, accepted on its second delivery.
                        c.acknowledge(r, count == 1 ? AcknowledgeType.RELEASE : AcknowledgeType.ACCEPT);
                        if (count > 1) done.add(r.offset());
                    } else if (r.offset() == 1) {
                        second.add(count + "");
                        c.acknowledge(r, AcknowledgeType.REJECT);
                        done.add(r.offset());
                    } else {
                        c.acknowledge(r, AcknowledgeType.ACCEPT);
                        done.add(r.offset());
                    }
                }
                c.commitSync();
            }
            int again = c.poll(Duration.ofMillis(500)).count();
            out("acks.offset0", String.join(",", firstSeen));
            out("acks.offset1", String.join(",", second));
            out("acks.done", done.size());
            out("acks.again", again);
        }
    }
}
