package io.gpuledger.broker;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.stream.Stream;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.metadata.storage.Formatter;
import org.apache.kafka.server.common.MetadataVersion;

/**
 * A real single-node Kafka broker (KRaft, combined broker and controller) inside this JVM, bound
 * to 127.0.0.1 on free ports, with its own temporary data directory. The demo and every
 * integration test start Kafka through this class, so they exercise the same broker code a
 * production cluster runs. A node of a cluster of several ({@link ClusterNode}) is started with
 * {@link #startIn(Path, int, ClusterNode)}, one process per node ({@link BrokerCluster}).
 *
 * <pre>{@code
 * try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
 *     String bootstrap = kafka.bootstrapServers();
 * }
 * }</pre>
 */
public final class EmbeddedKafka implements AutoCloseable {

    static final String HOST = "127.0.0.1";
    private static final int START_ATTEMPTS = 3;
    /**
     * How long a transactional write may wait on the broker for the markers of its producer's
     * previous transaction (Kafka's default: 100 ms). Set it on any cluster the cost engine uses.
     */
    public static final int ADD_PARTITIONS_MAX_WAIT_MS = 5_000;
    /** Written by formatting; a directory that has it holds a broker's data. */
    private static final String META_PROPERTIES = "meta.properties";

    private final Properties config;
    private final Path dataDir;
    private final boolean ownsDataDir;
    private final String bootstrapServers;
    private KafkaRaftServer server;
    private boolean stopped;

    private EmbeddedKafka(KafkaRaftServer server, Properties config, Path dataDir, boolean ownsDataDir,
            int brokerPort) {
        this.server = server;
        this.config = config;
        this.dataDir = dataDir;
        this.ownsDataDir = ownsDataDir;
        this.bootstrapServers = HOST + ":" + brokerPort;
    }

    /** Starts a broker on free ports. */
    public static EmbeddedKafka start() {
        return start(0);
    }

    /**
     * Starts a broker whose client listener is on {@code port} (0: any free port). The free port
     * is chosen just before binding, so another process may take it first: then the start is
     * retried on other ports.
     */
    public static EmbeddedKafka start(int port) {
        return start(port, Optional.empty(), false);
    }

    /**
     * Starts a broker on free ports that admits only authenticated clients over TLS, with ACLs
     * ({@link BrokerSecurity}); the demo's broker stays in plain text on the loopback address.
     */
    public static EmbeddedKafka startSecured(BrokerSecurity security) {
        return start(0, Optional.of(security), false);
    }

    /** @param streamsGroups whether its group coordinator also runs streams groups ({@link #startWithStreamsGroups}) */
    private static EmbeddedKafka start(int port, Optional<BrokerSecurity> security, boolean streamsGroups) {
        RuntimeException last = null;
        for (int attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
            Path dataDir = createDataDir();
            try {
                return startOnce(dataDir, port == 0 ? freePort() : port, ClusterNode.single(freePort()), true,
                        security, streamsGroups);
            } catch (RuntimeException e) {
                deleteRecursively(dataDir);
                last = e;
                if (port != 0) {
                    break;
                }
            }
        }
        throw new IllegalStateException("embedded Kafka broker did not start: " + last.getMessage(), last);
    }

    /**
     * Starts a broker on free ports whose group coordinator also runs streams groups, the Kafka
     * Streams rebalance protocol (KIP-1071, {@code group.protocol=streams}). Kafka 4.1 has it as
     * early access only: it needs the {@code streams.version} feature at level 1, which needs
     * metadata version 4.2-IV1, which 4.1 counts as unstable; so the broker is formatted at that
     * version with unstable features allowed, serves unstable API versions (the streams group
     * heartbeat is one) and lists {@code streams} among its rebalance protocols. For measuring
     * the protocol against the classic one, never for data that must outlive the broker: an
     * unstable metadata version may not be upgraded from.
     */
    public static EmbeddedKafka startWithStreamsGroups() {
        return start(0, Optional.empty(), true);
    }

    /**
     * Starts a broker on {@code dataDir} and the given ports. A directory that holds no broker's
     * data yet is formatted; one that does is taken as it is, so a broker started on the directory
     * of one that was killed recovers its logs as a production broker does after a crash. The
     * data stays where it is on {@link #close()}: the caller owns the directory.
     */
    public static EmbeddedKafka startIn(Path dataDir, int brokerPort, int controllerPort) {
        return startIn(dataDir, brokerPort, ClusterNode.single(controllerPort));
    }

    /**
     * Starts {@code node} of a cluster on {@code dataDir}, as {@link #startIn(Path, int, int)}
     * starts a broker alone. It serves once a majority of the cluster's controllers run, so the
     * nodes of a cluster are started side by side (each in a process of its own), not one after
     * the other.
     */
    public static EmbeddedKafka startIn(Path dataDir, int brokerPort, ClusterNode node) {
        try {
            Files.createDirectories(dataDir);
            return startOnce(dataDir, brokerPort, node, false, Optional.empty(), false);
        } catch (IOException | RuntimeException e) {
            throw new IllegalStateException("embedded Kafka broker did not start on " + dataDir + ": "
                    + e.getMessage(), e);
        }
    }

    private static EmbeddedKafka startOnce(Path dataDir, int brokerPort, ClusterNode node, boolean ownsDataDir,
            Optional<BrokerSecurity> security, boolean streamsGroups) {
        Properties props = brokerConfig(dataDir, brokerPort, node);
        security.ifPresent(secured -> props.putAll(securedListeners(secured, brokerPort, node.controllerPort())));
        if (streamsGroups) {
            props.put("group.coordinator.rebalance.protocols", "classic,consumer,streams");
            props.put("unstable.api.versions.enable", "true");
            props.put("unstable.feature.versions.enable", "true");
        }
        if (!Files.exists(dataDir.resolve(META_PROPERTIES))) {
            format(dataDir, node, security, streamsGroups);
        }
        return new EmbeddedKafka(startServer(props), props, dataDir, ownsDataDir, brokerPort);
    }

    private static KafkaRaftServer startServer(Properties props) {
        KafkaRaftServer server = new KafkaRaftServer(new KafkaConfig(props, false), Time.SYSTEM);
        try {
            server.startup();
        } catch (RuntimeException e) {
            server.shutdown();
            server.awaitShutdown();
            throw e;
        }
        return server;
    }

    /**
     * Stops the broker as a crash or an outage would look to its clients, keeping its data and
     * its ports for {@link #restartBroker()}.
     */
    public synchronized void stopBroker() {
        if (server != null) {
            server.shutdown();
            server.awaitShutdown();
            server = null;
        }
    }

    /** Starts the broker again on the same ports with the data it had. */
    public synchronized void restartBroker() {
        if (server == null && !stopped) {
            server = startServer(config);
        }
    }

    /**
     * Broker settings for one node: every internal topic, and every topic created without its own
     * setting (Kafka Streams' changelogs), kept in three copies of which two must have a record
     * before it is acknowledged, or on every node of a smaller cluster; no start-up delays.
     */
    static Properties brokerConfig(Path dataDir, int brokerPort, ClusterNode node) {
        String replicas = String.valueOf(node.replicationFactor());
        String minInSync = String.valueOf(node.minInSyncReplicas());
        Properties props = new Properties();
        props.put("process.roles", "broker,controller");
        props.put("node.id", String.valueOf(node.nodeId()));
        props.put("controller.quorum.voters", node.voters());
        props.put("listeners", "PLAINTEXT://" + HOST + ":" + brokerPort + ",CONTROLLER://" + HOST + ":"
                + node.controllerPort());
        props.put("advertised.listeners", "PLAINTEXT://" + HOST + ":" + brokerPort);
        props.put("controller.listener.names", "CONTROLLER");
        props.put("inter.broker.listener.name", "PLAINTEXT");
        props.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
        props.put("log.dirs", dataDir.toString());
        props.put("auto.create.topics.enable", "false");
        props.put("num.partitions", "1");
        props.put("default.replication.factor", replicas);
        props.put("min.insync.replicas", minInSync);
        // A replica that is behind is never made leader: that would throw away acknowledged records.
        props.put("unclean.leader.election.enable", "false");
        props.put("offsets.topic.replication.factor", replicas);
        props.put("offsets.topic.num.partitions", "5");
        props.put("transaction.state.log.replication.factor", replicas);
        props.put("transaction.state.log.min.isr", minInSync);
        props.put("transaction.state.log.num.partitions", "5");
        // A transaction's first write waits on the broker, rather than failing back to its
        // producer, while the markers of the transaction before are still being written: on a
        // busy machine that takes longer than the default 100 ms (docs/architecture.md).
        props.put("add.partitions.to.txn.retry.backoff.max.ms", String.valueOf(ADD_PARTITIONS_MAX_WAIT_MS));
        props.put("share.coordinator.state.topic.replication.factor", replicas);
        props.put("share.coordinator.state.topic.min.isr", minInSync);
        props.put("group.initial.rebalance.delay.ms", "0");
        // The cleaner (compacted topics such as the price table) reserves this much heap up front.
        props.put("log.cleaner.dedupe.buffer.size", String.valueOf(2 * 1024 * 1024));
        props.put("log.cleaner.threads", "1");
        return props;
    }

    /**
     * The listeners of a secured broker, replacing the plain ones: clients and the broker itself
     * on SASL_SSL, the controller on TLS admitting the broker's certificate only.
     */
    static Properties securedListeners(BrokerSecurity security, int brokerPort, int controllerPort) {
        Properties props = new Properties();
        props.put("listeners", "SASL_SSL://" + HOST + ":" + brokerPort + ",CONTROLLER://" + HOST + ":"
                + controllerPort);
        props.put("advertised.listeners", "SASL_SSL://" + HOST + ":" + brokerPort);
        props.put("inter.broker.listener.name", "SASL_SSL");
        props.put("listener.security.protocol.map", "SASL_SSL:SASL_SSL,CONTROLLER:SSL");
        props.put("sasl.enabled.mechanisms", BrokerSecurity.MECHANISM);
        props.put("sasl.mechanism.inter.broker.protocol", BrokerSecurity.MECHANISM);
        props.put("listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config",
                BrokerSecurity.jaas(security.admin(), security.users().get(security.admin())));
        props.put("ssl.keystore.type", "PKCS12");
        props.put("ssl.keystore.location", security.keyStore().toString());
        props.put("ssl.keystore.password", security.keyStorePassword());
        props.put("ssl.key.password", security.keyStorePassword());
        props.put("ssl.truststore.type", "PEM");
        props.put("ssl.truststore.location", security.certificate().toString());
        props.put("listener.name.controller.ssl.client.auth", "required");
        props.put("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
        props.put("super.users", "User:" + security.admin() + ";" + security.certificatePrincipal());
        return props;
    }

    /**
     * Formats {@code dataDir} at the latest production metadata version; with {@code streamsGroups},
     * at 4.2-IV1 with the {@code streams.version} feature at level 1, unstable features allowed.
     */
    private static void format(Path dataDir, ClusterNode node, Optional<BrokerSecurity> security,
            boolean streamsGroups) {
        List<String> scram = security.map(secured -> secured.users().entrySet().stream()
                .map(user -> BrokerSecurity.MECHANISM + "=[name=" + user.getKey() + ",password=" + user.getValue()
                        + "]")
                .toList()).orElse(List.of());
        try {
            Formatter formatter = formatter(dataDir, node, scram);
            if (streamsGroups) {
                formatter.setUnstableFeatureVersionsEnabled(true).setReleaseVersion(MetadataVersion.IBP_4_2_IV1)
                        .setFeatureLevel("streams.version", (short) 1);
            } else {
                formatter.setReleaseVersion(MetadataVersion.LATEST_PRODUCTION);
            }
            formatter.run();
        } catch (Exception e) {
            throw new IllegalStateException("cannot format Kafka data directory " + dataDir, e);
        }
    }

    /** Formats {@code dataDir} for {@code node}, with these SCRAM users, once run. */
    private static Formatter formatter(Path dataDir, ClusterNode node, List<String> scram) {
        return new Formatter()
                .setScramArguments(scram)
                .setPrintStream(new PrintStream(OutputStream.nullOutputStream()))
                .setNodeId(node.nodeId())
                .setClusterId(node.clusterId())
                .setDirectories(List.of(dataDir.toString()))
                .setMetadataLogDirectory(dataDir.toString())
                .setControllerListenerName("CONTROLLER");
    }

    /** {@code 127.0.0.1:port} of the client listener. */
    public String bootstrapServers() {
        return bootstrapServers;
    }

    public Path dataDir() {
        return dataDir;
    }

    /**
     * Stops the broker, waits for it to finish, and deletes its data unless it was started
     * {@linkplain #startIn in a directory of the caller's}. Safe to call twice.
     */
    @Override
    public synchronized void close() {
        if (stopped) {
            return;
        }
        stopped = true;
        try {
            stopBroker();
        } finally {
            if (ownsDataDir) {
                deleteRecursively(dataDir);
            }
        }
    }

    private static Path createDataDir() {
        try {
            return Files.createTempDirectory("gpu-ledger-kafka-");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a data directory for the embedded broker", e);
        }
    }

    static int freePort() {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port on " + HOST, e);
        }
    }

    static void deleteRecursively(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        } catch (IOException e) {
            // Leftovers in the temp directory are harmless; the broker is already stopped.
        }
    }
}
