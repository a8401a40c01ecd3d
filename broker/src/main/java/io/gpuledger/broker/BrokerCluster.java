package io.gpuledger.broker;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.kafka.common.Uuid;

/**
 * A KRaft cluster of several nodes on 127.0.0.1, each a {@link BrokerProcess} of its own (broker
 * and controller in one JVM, {@link BrokerMain}) with its own data directory and ports, so that
 * one node can be killed with SIGKILL while the others serve, and started again on its data.
 * Topics created through {@code TopicAdmin} and the internal topics are kept in three copies, two
 * of which must hold a record before it is acknowledged ({@link ClusterNode}).
 *
 * <pre>{@code
 * try (BrokerCluster cluster = BrokerCluster.start(classpath, 3, dir)) {
 *     String bootstrap = cluster.bootstrapServers();
 *     cluster.node(2).kill();
 *     cluster.node(2).restart();
 * }
 * }</pre>
 */
public final class BrokerCluster implements AutoCloseable {

    private static final int START_ATTEMPTS = 3;

    private final SortedMap<Integer, BrokerProcess> nodes;

    private BrokerCluster(SortedMap<Integer, BrokerProcess> nodes) {
        this.nodes = nodes;
    }

    /**
     * Starts {@code size} nodes, ids 1 to {@code size}, on free ports, node {@code n}'s data in
     * {@code dir/node-n} and its log in {@code dir/node-n.log}; waits until every one serves. A
     * port taken by another process meanwhile fails the start, which is tried again on others.
     *
     * @param classpath where the broker's classes and Kafka are, as for {@link BrokerProcess#start}
     */
    public static BrokerCluster start(String classpath, int size, Path dir) throws IOException, InterruptedException {
        if (size < 1) {
            throw new IllegalArgumentException("a cluster has one node or more, not " + size);
        }
        Files.createDirectories(dir);
        IllegalStateException last = null;
        for (int attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
            BrokerCluster cluster = new BrokerCluster(nodes(classpath, size, dir));
            try {
                cluster.launch();
                return cluster;
            } catch (IllegalStateException e) {
                cluster.kill();
                last = e;
            }
        }
        throw last;
    }

    private static SortedMap<Integer, BrokerProcess> nodes(String classpath, int size, Path dir) {
        String clusterId = Uuid.randomUuid().toString();
        SortedMap<Integer, Integer> controllerPorts = new TreeMap<>();
        SortedMap<Integer, Integer> brokerPorts = new TreeMap<>();
        for (int id = 1; id <= size; id++) {
            controllerPorts.put(id, EmbeddedKafka.freePort());
            brokerPorts.put(id, EmbeddedKafka.freePort());
        }
        SortedMap<Integer, BrokerProcess> nodes = new TreeMap<>();
        for (int id = 1; id <= size; id++) {
            Path data = dir.resolve("node-" + id);
            // A failed attempt's data names ports no longer used: each attempt formats afresh.
            EmbeddedKafka.deleteRecursively(data);
            ClusterNode node = new ClusterNode(id, clusterId, controllerPorts);
            nodes.put(id, new BrokerProcess(BrokerProcess.command(classpath, data, brokerPorts.get(id), node),
                    dir.resolve("node-" + id + ".log"), brokerPorts.get(id)));
        }
        return nodes;
    }

    /** All the JVMs first, then the wait: a node serves only once a majority of controllers run. */
    private void launch() throws IOException, InterruptedException {
        for (BrokerProcess node : nodes.values()) {
            node.spawn();
        }
        for (BrokerProcess node : nodes.values()) {
            node.awaitServing();
        }
    }

    /** Every node's {@code 127.0.0.1:port}, comma-separated: a client's bootstrap list. */
    public String bootstrapServers() {
        return nodes.values().stream().map(BrokerProcess::bootstrapServers).collect(Collectors.joining(","));
    }

    /** Node {@code id}, 1 to {@link #size()}, to kill and restart. */
    public BrokerProcess node(int id) {
        BrokerProcess node = nodes.get(id);
        if (node == null) {
            throw new IllegalArgumentException("no node " + id + " in a cluster of " + nodes.size());
        }
        return node;
    }

    /** The id of the node serving clients on {@code 127.0.0.1:port}. */
    public int nodeAt(int port) {
        return nodes.entrySet().stream()
                .filter(node -> node.getValue().bootstrapServers().equals(EmbeddedKafka.HOST + ":" + port))
                .map(node -> node.getKey()).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no node of the cluster on port " + port));
    }

    public int size() {
        return nodes.size();
    }

    /** Ends every node as a crash would (a whole-cluster outage), keeping their data. */
    public void kill() throws InterruptedException {
        for (BrokerProcess node : nodes.values()) {
            node.kill();
        }
    }

    /** Starts again every node that is not running, on its data and ports; waits until each serves. */
    public void restart() throws IOException, InterruptedException {
        List<BrokerProcess> stopped = new ArrayList<>();
        for (BrokerProcess node : nodes.values()) {
            if (!node.isAlive()) {
                node.spawn();
                stopped.add(node);
            }
        }
        for (BrokerProcess node : stopped) {
            node.awaitServing();
        }
    }

    /**
     * Stops every node cleanly, keeping their data: SIGTERM to all at once (the last one alone
     * would wait for a controller quorum that is gone), then SIGKILL to any still there after 30 s.
     */
    @Override
    public void close() throws InterruptedException {
        nodes.values().forEach(BrokerProcess::terminate);
        InterruptedException interrupted = null;
        for (BrokerProcess node : nodes.values()) {
            try {
                node.close();
            } catch (InterruptedException e) {
                interrupted = e;
            }
        }
        if (interrupted != null) {
            throw interrupted;
        }
    }
}
