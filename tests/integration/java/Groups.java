// Consumer groups as a Java user runs them: KIP-848 (group.protocol=consumer) and a classic
// group with the cooperative-sticky assignor. Two members share a topic of 4 partitions, every
// record is read, offsets are committed, then one member leaves and the other takes
// everything over. Prints key=value lines for tests/integration/java/test_groups.py.
// Usage: java -cp 'jars/*' Groups.java BOOTSTRAP PREFIX
import java.time.Duration;
import java.util.*;
import org.apache.kafka.clients.admin.*;
import org.apache.kafka.clients.consumer.*;
import org.apache.kafka.clients.producer.*;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.*;

public class Groups {
    static String bootstrap, prefix;

    static void out(String key, Object value) { System.out.println(key + "=" + value); }

    static KafkaConsumer<String, String> consumer(String group, String protocol) {
        Properties c = new Properties();
        c.put("bootstrap.servers", bootstrap);
        c.put("group.id", group);
        c.put("group.protocol", protocol);
        c.put("enable.auto.commit", "false");
        c.put("auto.offset.reset", "earliest");
        if (protocol.equals("classic")) {
            c.put("partition.assignment.strategy", CooperativeStickyAssignor.class.getName());
            c.put("heartbeat.interval.ms", "200");
            c.put("session.timeout.ms", "6000");
        }
        return new KafkaConsumer<>(c, new StringDeserializer(), new StringDeserializer());
    }

    static String partitions(Collection<TopicPartition> tps) {
        List<Integer> ps = new ArrayList<>();
        for (TopicPartition tp : tps) ps.add(tp.partition());
        Collections.sort(ps);
        return ps.toString().replace(" ", "");
    }

    public static void main(String[] args) throws Exception {
        bootstrap = args[0];
        prefix = args[1];
        Properties common = new Properties();
        common.put("bootstrap.servers", bootstrap);
        try (Admin admin = Admin.create(common)) {
            for (String protocol : new String[] {"consumer", "classic"}) {
                String topic = prefix + "-" + protocol;
                admin.createTopics(List.of(new NewTopic(topic, 4, (short) 1))).all().get();
                try (Producer<String, String> p = new KafkaProducer<>(common, new StringSerializer(), new StringSerializer())) {
                    for (int i = 0; i < 8; i++) p.send(new ProducerRecord<>(topic, i % 4, "k" + i, "v" + i));
                }
                group(admin, protocol, topic, prefix + "-g-" + protocol);
            }
        }
    }

    static boolean caughtUp(KafkaConsumer<String, String> c) {
        for (TopicPartition tp : c.assignment()) if (c.position(tp, Duration.ofSeconds(5)) < 2) return false;
        return true;
    }

    static void group(Admin admin, String protocol, String topic, String group) throws Exception {
        KafkaConsumer<String, String> a = consumer(group, protocol), b = consumer(group, protocol);
        try {
            a.subscribe(List.of(topic));
            b.subscribe(List.of(topic));
            Set<String> seen = new TreeSet<>();
            long deadline = System.currentTimeMillis() + 30_000;
            // Both members polled from this one thread until the partitions are split 2 and 2
            // and each member has read its partitions to the end (2 records each).
            while (System.currentTimeMillis() < deadline
                    && !(a.assignment().size() == 2 && b.assignment().size() == 2 && seen.size() == 8
                         && caughtUp(a) && caughtUp(b))) {
                for (KafkaConsumer<String, String> c : List.of(a, b))
                    for (ConsumerRecord<String, String> r : c.poll(Duration.ofMillis(100))) {
                        seen.add(r.value());
                    }
            }
            out(protocol + ".a.assigned", partitions(a.assignment()));
            out(protocol + ".b.assigned", partitions(b.assignment()));
            out(protocol + ".seen", String.join(",", seen));
            a.commitSync();
            b.commitSync();
            ConsumerGroupDescription d = admin.describeConsumerGroups(List.of(group)).describedGroups().get(group).get();
            out(protocol + ".type", d.type());
            out(protocol + ".state", d.groupState());
            out(protocol + ".members", d.members().size());
            out(protocol + ".assignor", d.partitionAssignor());
            long committed = 0;
            for (var e : admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get().entrySet())
                committed += e.getValue().offset();
            out(protocol + ".committed", committed);
            // Offsets of a topic the members subscribe to stay (GROUP_SUBSCRIBED_TO_TOPIC).
            try {
                admin.deleteConsumerGroupOffsets(group, Set.of(new TopicPartition(topic, 0))).all().get();
                out(protocol + ".offsets_delete", "deleted");
            } catch (Exception e) {
                out(protocol + ".offsets_delete", e.getCause().getClass().getSimpleName());
            }
            b.close();
            deadline = System.currentTimeMillis() + 30_000;
            while (System.currentTimeMillis() < deadline && a.assignment().size() < 4) a.poll(Duration.ofMillis(100));
            out(protocol + ".after_leave", partitions(a.assignment()));
            // The admin client removes every member (LeaveGroup naming them), of either protocol.
            try {
                admin.removeMembersFromConsumerGroup(group, new RemoveMembersFromConsumerGroupOptions()).all().get();
                out(protocol + ".remove_all", "removed");
            } catch (Exception e) {
                out(protocol + ".remove_all", e.getCause().getClass().getSimpleName() + ": " + e.getCause().getMessage());
            }
        } finally {
            a.close();
            b.close();
        }
        ConsumerGroupDescription d = admin.describeConsumerGroups(List.of(group)).describedGroups().get(group).get();
        out(protocol + ".final_state", d.groupState());
    }
}
