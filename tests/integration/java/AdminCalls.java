// The Admin API calls a Java user makes: topics by name and by id, configs with their
// sources, partitions, records, offsets, groups, log dirs, ACLs and features. With "acl" as third
// argument only the ACL calls run (for a broker with an authorizer). Prints key=value lines
// for tests/integration/java/test_admin.py; a failed call prints its exception's class and message.
// Usage: java -cp 'jars/*' AdminCalls.java BOOTSTRAP PREFIX [acl]
import java.util.*;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.*;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.*;
import org.apache.kafka.common.*;
import org.apache.kafka.common.acl.*;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.resource.*;
import org.apache.kafka.common.serialization.StringSerializer;

public class AdminCalls {
    static void out(String key, Object value) { System.out.println(key + "=" + value); }

    static String error(Throwable e) {
        Throwable c = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
        return "!" + c.getClass().getSimpleName() + ": " + c.getMessage();
    }

    interface Call { Object run() throws Exception; }

    // One fact per call: its value, or the error it failed with.
    static void fact(String key, Call call) {
        try {
            out(key, call.run());
        } catch (Exception e) {
            out(key, error(e));
        }
    }

    public static void main(String[] args) throws Exception {
        String bootstrap = args[0], prefix = args[1];
        Properties common = new Properties();
        common.put("bootstrap.servers", bootstrap);
        try (Admin admin = Admin.create(common)) {
            if (args.length > 2 && args[2].equals("acl")) {
                aclsWithAuthorizer(admin, prefix);
                return;
            }
            topics(admin, prefix);
            configs(admin, prefix);
            records(admin, common, prefix);
            groups(admin, prefix);
            logDirs(admin, prefix);
            aclsWithoutAuthorizer(admin);
            features(admin);
            delegationTokens(admin);
            quorum(admin);
        }
    }

    static void topics(Admin admin, String prefix) throws Exception {
        String topic = prefix + "-t";
        CreateTopicsResult created = admin.createTopics(List.of(
                new NewTopic(topic, 2, (short) 1).configs(Map.of("retention.ms", "60000"))));
        Uuid id = created.topicId(topic).get();
        out("create.partitions", created.numPartitions(topic).get());
        out("create.config.retention.ms", created.config(topic).get().get("retention.ms").value());
        fact("list.has", () -> admin.listTopics().names().get().contains(topic));
        fact("byname", () -> {
            TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
            return d.name() + "/" + d.partitions().size() + "/" + d.topicId().equals(id);
        });
        fact("byid", () -> {
            TopicDescription d = admin.describeTopics(TopicCollection.ofTopicIds(List.of(id))).allTopicIds().get().get(id);
            return d.name() + "/" + d.partitions().size() + "/" + d.topicId().equals(id);
        });
        fact("byid.unknown", () -> admin.describeTopics(TopicCollection.ofTopicIds(List.of(Uuid.randomUuid()))).allTopicIds().get());
        fact("byname.unknown", () -> admin.describeTopics(List.of(prefix + "-none")).allTopicNames().get());
        fact("partitions.create", () -> {
            admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(3))).all().get();
            return admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic).partitions().size();
        });
        fact("partitions.fewer", () -> admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(1))).all().get());
        String doomed = prefix + "-doomed";
        Uuid doomedId = admin.createTopics(List.of(new NewTopic(doomed, 1, (short) 1))).topicId(doomed).get();
        fact("delete.byid", () -> {
            admin.deleteTopics(TopicCollection.ofTopicIds(List.of(doomedId))).all().get();
            return admin.listTopics().names().get().contains(doomed);
        });
    }

    static void configs(Admin admin, String prefix) throws Exception {
        String topic = prefix + "-t";
        ConfigResource t = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        Config tc = admin.describeConfigs(List.of(t)).all().get().get(t);
        for (String name : List.of("retention.ms", "cleanup.policy", "segment.bytes")) {
            ConfigEntry e = tc.get(name);
            out("topic." + name, e.value() + "/" + e.source() + "/" + e.isReadOnly() + "/" + e.isSensitive());
        }
        fact("topic.alter", () -> {
            admin.incrementalAlterConfigs(Map.of(t, List.of(
                    new AlterConfigOp(new ConfigEntry("retention.ms", "120000"), AlterConfigOp.OpType.SET),
                    new AlterConfigOp(new ConfigEntry("cleanup.policy", "compact"), AlterConfigOp.OpType.SET)))).all().get();
            Config after = admin.describeConfigs(List.of(t)).all().get().get(t);
            return after.get("retention.ms").value() + "/" + after.get("cleanup.policy").value() + "/" + after.get("cleanup.policy").source();
        });
        String broker = String.valueOf(admin.describeCluster().nodes().get().iterator().next().id());
        ConfigResource b = new ConfigResource(ConfigResource.Type.BROKER, broker);
        Config bc = admin.describeConfigs(List.of(b)).all().get().get(b);
        out("broker.count", bc.entries().size());
        for (String name : List.of("num.partitions", "log.retention.hours", "log.retention.minutes", "log.retention.ms", "log.roll.hours",
                "offsets.topic.replication.factor", "log.dir", "auto.create.topics.enable", "ssl.key.password", "broker.id", "node.id")) {
            ConfigEntry e = bc.get(name);
            out("broker." + name, e == null ? "missing" : e.value() + "/" + e.source() + "/" + e.isReadOnly() + "/" + e.isSensitive());
        }
        fact("broker.node.id.synonyms", () -> {
            ConfigEntry e = admin.describeConfigs(List.of(b), new DescribeConfigsOptions().includeSynonyms(true)).all().get().get(b).get("node.id");
            List<String> s = new ArrayList<>();
            for (ConfigEntry.ConfigSynonym y : e.synonyms()) s.add(y.name() + ":" + y.value() + ":" + y.source());
            return s;
        });
        for (String name : List.of("", prefix + "-sub"))
            fact("clientmetrics.describe" + (name.isEmpty() ? ".empty" : ""), () -> admin.describeConfigs(List.of(
                    new ConfigResource(ConfigResource.Type.CLIENT_METRICS, name))).all().get().values().iterator().next().entries().size());
        fact("configres.nontopic", () -> {
            List<String> found = new ArrayList<>();
            for (ConfigResource r : admin.listConfigResources().all().get())
                if (r.type() != ConfigResource.Type.TOPIC && r.type() != ConfigResource.Type.GROUP) found.add(r.type() + ":" + r.name());
            Collections.sort(found);
            return String.join(",", found);
        });
        fact("configres.topic", () -> {
            var found = admin.listConfigResources(Set.of(ConfigResource.Type.TOPIC), new ListConfigResourcesOptions()).all().get();
            return found.stream().allMatch(r -> r.type() == ConfigResource.Type.TOPIC) + "/" + found.contains(t);
        });
        fact("configres.clientmetrics", () -> admin.listConfigResources(Set.of(ConfigResource.Type.CLIENT_METRICS), new ListConfigResourcesOptions()).all().get());
        brokerLoggers(admin, broker);
        fact("broker.alter.readonly", () -> admin.incrementalAlterConfigs(Map.of(b, List.of(
                new AlterConfigOp(new ConfigEntry("log.retention.hours", "1"), AlterConfigOp.OpType.SET)))).all().get());
        fact("broker.alter.unknown", () -> admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.TOPIC, topic), List.of(
                new AlterConfigOp(new ConfigEntry("no.such.config", "1"), AlterConfigOp.OpType.SET)))).all().get());
    }

    // The broker's loggers (BROKER_LOGGER): described, one set and unset, Kafka's refusals.
    static void brokerLoggers(Admin admin, String broker) {
        ConfigResource bl = new ConfigResource(ConfigResource.Type.BROKER_LOGGER, broker);
        String logger = "storage.log_manager";
        Call level = () -> {
            ConfigEntry e = admin.describeConfigs(List.of(bl)).all().get().get(bl).get(logger);
            return e.value() + "/" + e.source() + "/" + e.isReadOnly() + "/" + e.isSensitive() + "/" + e.type();
        };
        fact("logger.root", () -> admin.describeConfigs(List.of(bl)).all().get().get(bl).get("root").value());
        fact("logger.before", level);
        fact("logger.set", () -> {
            admin.incrementalAlterConfigs(Map.of(bl, List.of(new AlterConfigOp(new ConfigEntry(logger, "ERROR"), AlterConfigOp.OpType.SET)))).all().get();
            return level.run();
        });
        fact("logger.unset", () -> {
            admin.incrementalAlterConfigs(Map.of(bl, List.of(new AlterConfigOp(new ConfigEntry(logger, ""), AlterConfigOp.OpType.DELETE)))).all().get();
            return level.run();
        });
        for (var op : List.of(new AlterConfigOp(new ConfigEntry(logger, "LOUD"), AlterConfigOp.OpType.SET),
                new AlterConfigOp(new ConfigEntry("no.such.logger", "DEBUG"), AlterConfigOp.OpType.SET),
                new AlterConfigOp(new ConfigEntry("root", ""), AlterConfigOp.OpType.DELETE),
                new AlterConfigOp(new ConfigEntry("root", "INFO"), AlterConfigOp.OpType.APPEND)))
            fact("logger.refused." + op.opType() + "." + op.configEntry().name(),
                    () -> admin.incrementalAlterConfigs(Map.of(bl, List.of(op))).all().get());
    }

    static void records(Admin admin, Properties common, String prefix) throws Exception {
        String topic = prefix + "-t";
        TopicPartition tp = new TopicPartition(topic, 0);
        try (Producer<String, String> p = new KafkaProducer<>(common, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < 5; i++) p.send(new ProducerRecord<>(topic, 0, 1_700_000_000_000L + i * 10, "k", "v" + i));
        }
        // Kafka deletes records only where the cleanup policy includes delete.
        ConfigResource t = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        fact("records.delete.compacted", () -> admin.deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(2))).lowWatermarks().get(tp).get().lowWatermark());
        admin.incrementalAlterConfigs(Map.of(t, List.of(
                new AlterConfigOp(new ConfigEntry("cleanup.policy", "compact,delete"), AlterConfigOp.OpType.SET)))).all().get();
        fact("records.delete", () -> admin.deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(2))).lowWatermarks().get(tp).get().lowWatermark());
        for (var spec : Map.of("earliest", OffsetSpec.earliest(), "latest", OffsetSpec.latest(), "max", OffsetSpec.maxTimestamp(),
                "bytime", OffsetSpec.forTimestamp(1_700_000_000_025L)).entrySet()) {
            fact("offsets." + spec.getKey(), () -> {
                var info = admin.listOffsets(Map.of(tp, spec.getValue())).partitionResult(tp).get();
                return info.offset() + "/" + info.timestamp();
            });
        }
    }

    static void groups(Admin admin, String prefix) throws Exception {
        String topic = prefix + "-t", group = prefix + "-g";
        TopicPartition tp0 = new TopicPartition(topic, 0), tp1 = new TopicPartition(topic, 1);
        fact("groups.alter", () -> {
            admin.alterConsumerGroupOffsets(group, Map.of(tp0, new OffsetAndMetadata(3, "meta"), tp1, new OffsetAndMetadata(0))).all().get();
            var offsets = admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
            return offsets.get(tp0).offset() + "/" + offsets.get(tp0).metadata() + "/" + offsets.get(tp1).offset();
        });
        fact("groups.listed", () -> {
            for (GroupListing g : admin.listGroups().all().get())
                if (g.groupId().equals(group)) return g.type().map(Object::toString).orElse("?") + "/" + g.groupState().map(Object::toString).orElse("?");
            return "absent";
        });
        fact("groups.describe", () -> {
            ConsumerGroupDescription d = admin.describeConsumerGroups(List.of(group)).describedGroups().get(group).get();
            return d.groupState() + "/" + d.members().size() + "/" + d.type();
        });
        fact("groups.offsets.delete", () -> {
            admin.deleteConsumerGroupOffsets(group, Set.of(tp1)).all().get();
            return admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get().keySet().size();
        });
        fact("groups.delete", () -> {
            admin.deleteConsumerGroups(List.of(group)).all().get();
            return admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get().size();
        });
        fact("groups.delete.unknown", () -> admin.deleteConsumerGroups(List.of(prefix + "-none")).all().get());
    }

    static void logDirs(Admin admin, String prefix) throws Exception {
        String topic = prefix + "-t";
        int broker = admin.describeCluster().nodes().get().iterator().next().id();
        var dirs = admin.describeLogDirs(List.of(broker)).allDescriptions().get().get(broker);
        out("logdirs.count", dirs.size());
        for (LogDirDescription d : dirs.values()) {
            out("logdirs.error", d.error() == null ? "none" : d.error().getClass().getSimpleName());
            ReplicaInfo r = d.replicaInfos().get(new TopicPartition(topic, 0));
            out("logdirs.replica", r == null ? "missing" : (r.size() > 0) + "/" + r.offsetLag() + "/" + r.isFuture());
            out("logdirs.space", d.totalBytes().isPresent() + "/" + d.usableBytes().isPresent());
        }
    }

    // Finalized levels as name:level and supported ranges as name:min-max, sorted by name.
    static void features(Admin admin) {
        fact("features", () -> {
            FeatureMetadata f = admin.describeFeatures().featureMetadata().get();
            List<String> fin = new ArrayList<>(), sup = new ArrayList<>();
            new TreeMap<>(f.finalizedFeatures()).forEach((n, r) -> fin.add(n + ":" + r.minVersionLevel() + "-" + r.maxVersionLevel()));
            new TreeMap<>(f.supportedFeatures()).forEach((n, r) -> sup.add(n + ":" + r.minVersion() + "-" + r.maxVersion()));
            return String.join(",", fin) + "/" + String.join(",", sup);
        });
        fact("features.epoch", () -> admin.describeFeatures().featureMetadata().get().finalizedFeaturesEpoch().isPresent());
        // KRaft's features as kafka-features.sh updates them; validate-only, so the shared broker keeps its levels.
        FeatureUpdate.UpgradeType up = FeatureUpdate.UpgradeType.UPGRADE, safe = FeatureUpdate.UpgradeType.SAFE_DOWNGRADE,
                unsafe = FeatureUpdate.UpgradeType.UNSAFE_DOWNGRADE;
        update(admin, "features.mv.same", "metadata.version", 25, up);
        update(admin, "features.mv.unknown", "metadata.version", 26, up);
        update(admin, "features.mv.down.noflag", "metadata.version", 24, up);
        update(admin, "features.mv.down.safe", "metadata.version", 24, safe);
        update(admin, "features.mv.down.lossy", "metadata.version", 22, safe);
        update(admin, "features.mv.down.unsafe", "metadata.version", 22, unsafe);
        update(admin, "features.kraft.down", "kraft.version", 0, safe);
        update(admin, "features.kraft.unknown", "kraft.version", 2, up);
        update(admin, "features.unknown", "no.such.feature", 1, up);
    }

    static void update(Admin admin, String key, String feature, int level, FeatureUpdate.UpgradeType type) {
        fact(key, () -> {
            admin.updateFeatures(Map.of(feature, new FeatureUpdate((short) level, type)),
                    new UpdateFeaturesOptions().validateOnly(true)).all().get();
            return "ok";
        });
    }

    // The metadata quorum as Kafka's single combined node describes it; brokers unregistered.
    static void quorum(Admin admin) throws Exception {
        int broker = admin.describeCluster().nodes().get().iterator().next().id();
        fact("quorum", () -> {
            QuorumInfo q = admin.describeMetadataQuorum().quorumInfo().get();
            List<String> voters = new ArrayList<>();
            for (QuorumInfo.ReplicaState r : q.voters())
                voters.add(r.replicaId() + ":" + (r.logEndOffset() == q.highWatermark()) + ":" + r.lastCaughtUpTimestamp().isPresent());
            return q.leaderId() + "/" + q.leaderEpoch() + "/" + voters + "/" + q.observers().size() + "/" + q.nodes().keySet();
        });
        fact("unregister", () -> { admin.unregisterBroker(broker).all().get(); return "ok"; });
        fact("unregister.unknown", () -> { admin.unregisterBroker(broker + 76).all().get(); return "ok"; });
    }

    // Refused on a PLAINTEXT channel, as Kafka's KafkaApis refuses them.
    static void delegationTokens(Admin admin) {
        fact("token.create", () -> admin.createDelegationToken().delegationToken().get());
        fact("token.describe", () -> admin.describeDelegationToken().delegationTokens().get());
        fact("token.renew", () -> admin.renewDelegationToken(new byte[] {1}).expiryTimestamp().get());
        fact("token.expire", () -> admin.expireDelegationToken(new byte[] {1}).expiryTimestamp().get());
    }

    static AclBinding acl(String topic, String principal, AclOperation op) {
        return new AclBinding(new ResourcePattern(ResourceType.TOPIC, topic, PatternType.LITERAL),
                new AccessControlEntry(principal, "*", op, AclPermissionType.ALLOW));
    }

    static void aclsWithoutAuthorizer(Admin admin) {
        fact("acl.none.describe", () -> admin.describeAcls(AclBindingFilter.ANY).values().get());
        fact("acl.none.create", () -> admin.createAcls(List.of(acl("t", "User:alice", AclOperation.READ))).all().get());
        fact("acl.none.delete", () -> admin.deleteAcls(List.of(AclBindingFilter.ANY)).all().get());
    }

    static void aclsWithAuthorizer(Admin admin, String prefix) {
        String topic = prefix + "-secured";
        fact("acl.create", () -> {
            admin.createAcls(List.of(acl(topic, "User:alice", AclOperation.READ), acl(topic, "User:bob", AclOperation.WRITE))).all().get();
            return "ok";
        });
        ResourcePatternFilter pattern = new ResourcePatternFilter(ResourceType.TOPIC, topic, PatternType.LITERAL);
        fact("acl.describe", () -> {
            List<String> found = new ArrayList<>();
            for (AclBinding b : admin.describeAcls(new AclBindingFilter(pattern, AccessControlEntryFilter.ANY)).values().get())
                found.add(b.entry().principal() + ":" + b.entry().operation() + ":" + b.entry().permissionType());
            Collections.sort(found);
            return String.join(",", found);
        });
        fact("acl.delete", () -> admin.deleteAcls(List.of(new AclBindingFilter(pattern,
                new AccessControlEntryFilter("User:bob", null, AclOperation.ANY, AclPermissionType.ANY)))).all().get().size());
        fact("acl.after", () -> admin.describeAcls(new AclBindingFilter(pattern, AccessControlEntryFilter.ANY)).values().get().size());
        fact("acl.invalid", () -> admin.createAcls(List.of(new AclBinding(new ResourcePattern(ResourceType.TOPIC, topic, PatternType.LITERAL),
                new AccessControlEntry("alice", "*", AclOperation.READ, AclPermissionType.ALLOW)))).all().get());
    }
}
