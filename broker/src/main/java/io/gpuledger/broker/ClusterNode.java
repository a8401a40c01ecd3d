package io.gpuledger.broker;

import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.kafka.common.Uuid;

/**
 * One node's place in an embedded KRaft cluster on 127.0.0.1, every node a broker and a
 * controller: its id, the cluster's id (the same on every node, written when a node is formatted)
 * and the controller port of each node, which together are the controller quorum. One node alone
 * is a cluster of one.
 *
 * @param nodeId          this node's id, one of {@code controllerPorts}' keys
 * @param clusterId       the cluster's id: a Kafka UUID in base64
 * @param controllerPorts node id to the port of its controller listener
 */
public record ClusterNode(int nodeId, String clusterId, SortedMap<Integer, Integer> controllerPorts) {

    /** Most copies of a record a cluster keeps: three, or one per node on a smaller cluster. */
    public static final int MAX_REPLICAS = 3;

    public ClusterNode {
        controllerPorts = new TreeMap<>(controllerPorts);
        if (!controllerPorts.containsKey(nodeId)) {
            throw new IllegalArgumentException("node " + nodeId + " is not one of the voters "
                    + controllerPorts.keySet());
        }
        try {
            Uuid.fromString(clusterId);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("not a cluster id (a UUID in base64): " + clusterId, e);
        }
    }

    /** The one node of a cluster of one, node id 1, under a new cluster id. */
    public static ClusterNode single(int controllerPort) {
        return new ClusterNode(1, Uuid.randomUuid().toString(), new TreeMap<>(Map.of(1, controllerPort)));
    }

    /**
     * Node {@code nodeId} of the cluster whose voters are {@code voters}, written as Kafka's
     * {@code controller.quorum.voters}: {@code 1@127.0.0.1:9093,2@127.0.0.1:9095,...}.
     */
    public static ClusterNode parse(int nodeId, String clusterId, String voters) {
        SortedMap<Integer, Integer> ports = new TreeMap<>();
        for (String voter : voters.split(",")) {
            String[] idAndAddress = voter.split("@", 2);
            String prefix = EmbeddedKafka.HOST + ":";
            if (idAndAddress.length != 2 || !idAndAddress[0].matches("[0-9]{1,9}")
                    || !idAndAddress[1].startsWith(prefix)
                    || !idAndAddress[1].substring(prefix.length()).matches("[1-9][0-9]{0,4}")) {
                throw new IllegalArgumentException("a voter is id@" + prefix + "port, was '" + voter + "'");
            }
            if (ports.put(Integer.parseInt(idAndAddress[0]),
                    Integer.parseInt(idAndAddress[1].substring(prefix.length()))) != null) {
                throw new IllegalArgumentException("voter " + idAndAddress[0] + " is named twice in " + voters);
            }
        }
        return new ClusterNode(nodeId, clusterId, ports);
    }

    /** Kafka's {@code controller.quorum.voters}. */
    public String voters() {
        return controllerPorts.entrySet().stream()
                .map(voter -> voter.getKey() + "@" + EmbeddedKafka.HOST + ":" + voter.getValue())
                .collect(Collectors.joining(","));
    }

    public int controllerPort() {
        return controllerPorts.get(nodeId);
    }

    /** Nodes in the cluster. */
    public int size() {
        return controllerPorts.size();
    }

    /** Copies of each record: three, or as many as there are nodes. */
    public int replicationFactor() {
        return replicationFactor(size());
    }

    /**
     * Copies that must have a record before it is acknowledged to a producer asking for all
     * ({@code acks=all}): one fewer than there are, so one node may be lost without losing an
     * acknowledged record and writes go on while one is away; one alone on a cluster of one or two.
     */
    public int minInSyncReplicas() {
        return minInSyncReplicas(replicationFactor());
    }

    /** Copies of each record on a cluster of {@code brokers}. */
    public static int replicationFactor(int brokers) {
        return Math.max(1, Math.min(MAX_REPLICAS, brokers));
    }

    /** The {@code min.insync.replicas} of a topic kept in {@code replicationFactor} copies. */
    public static int minInSyncReplicas(int replicationFactor) {
        return replicationFactor >= MAX_REPLICAS ? replicationFactor - 1 : 1;
    }
}
