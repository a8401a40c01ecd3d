package io.gpuledger.broker;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The embedded broker as a process of its own:
 * {@code java -cp ... io.gpuledger.broker.BrokerMain --data-dir DIR --port PORT --controller-port PORT}.
 * A node of a cluster ({@link ClusterNode}) is told its id, the cluster's id and every node's
 * controller address as well:
 * {@code --node-id 2 --cluster-id ID --voters 1@127.0.0.1:P1,2@127.0.0.1:P2,...}, where its own
 * entry names its {@code --controller-port}. Started on a directory that holds a broker's data, it
 * takes that data as it is (see {@link EmbeddedKafka#startIn}). It prints {@value #RUNNING}
 * followed by its address once it serves clients, and stops cleanly on SIGTERM, keeping its
 * data. Exit status 2: the command line
 * is wrong.
 */
public final class BrokerMain {

    public static final String RUNNING = "broker: RUNNING";
    private static final String USAGE = "usage: BrokerMain --data-dir DIR --port PORT --controller-port PORT"
            + " [--node-id N --cluster-id ID --voters ID@127.0.0.1:PORT,...]\n";
    private static final List<String> REQUIRED = List.of("--data-dir", "--port", "--controller-port");
    /** Together or not at all: a node of a cluster of several. */
    private static final List<String> CLUSTER = List.of("--node-id", "--cluster-id", "--voters");

    private BrokerMain() {
    }

    public static void main(String[] args) throws InterruptedException {
        Map<String, String> options;
        ClusterNode node;
        try {
            options = parse(args);
            node = node(options);
        } catch (IllegalArgumentException e) {
            System.err.println("broker: " + e.getMessage());
            System.err.print(USAGE);
            System.exit(2);
            return;
        }
        EmbeddedKafka kafka = EmbeddedKafka.startIn(Path.of(options.get("--data-dir")),
                Integer.parseInt(options.get("--port")), node);
        Runtime.getRuntime().addShutdownHook(new Thread(kafka::close, "broker-shutdown"));
        System.out.println(RUNNING + " " + kafka.bootstrapServers() + " (data " + kafka.dataDir() + ")");
        // The broker's own threads keep the JVM alive; this one has nothing more to do.
        Thread.currentThread().join();
    }

    static Map<String, String> parse(String[] args) {
        Map<String, String> options = new HashMap<>();
        for (int i = 0; i < args.length; i += 2) {
            if (!REQUIRED.contains(args[i]) && !CLUSTER.contains(args[i]) || i + 1 >= args.length) {
                throw new IllegalArgumentException("unknown option or missing value: " + args[i]);
            }
            options.put(args[i], args[i + 1]);
        }
        for (String option : REQUIRED) {
            if (!options.containsKey(option)) {
                throw new IllegalArgumentException(option + " is required");
            }
        }
        long clusterOptions = CLUSTER.stream().filter(options::containsKey).count();
        if (clusterOptions != 0 && clusterOptions != CLUSTER.size()) {
            throw new IllegalArgumentException(String.join(", ", CLUSTER) + " go together");
        }
        for (String port : List.of("--port", "--controller-port")) {
            if (!options.get(port).matches("[1-9][0-9]{0,4}")) {
                throw new IllegalArgumentException(port + " must be a port number, was " + options.get(port));
            }
        }
        return options;
    }

    /** The node the options describe: the one node of a cluster of one unless they name a cluster. */
    static ClusterNode node(Map<String, String> options) {
        int controllerPort = Integer.parseInt(options.get("--controller-port"));
        if (!options.containsKey("--voters")) {
            return ClusterNode.single(controllerPort);
        }
        if (!options.get("--node-id").matches("[0-9]{1,9}")) {
            throw new IllegalArgumentException("--node-id must be a number, was " + options.get("--node-id"));
        }
        ClusterNode node = ClusterNode.parse(Integer.parseInt(options.get("--node-id")), options.get("--cluster-id"),
                options.get("--voters"));
        if (node.controllerPort() != controllerPort) {
            throw new IllegalArgumentException("--voters gives node " + node.nodeId() + " controller port "
                    + node.controllerPort() + ", --controller-port " + controllerPort);
        }
        return node;
    }
}
