package io.gpuledger.broker;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The embedded broker as a process of its own:
 * {@code java -cp ... io.gpuledger.broker.BrokerMain --data-dir DIR --port PORT --controller-port PORT}.
 * Started on a directory that holds a broker's data, it takes that data as it is (see
 * {@link EmbeddedKafka#startIn}). It prints {@value #RUNNING} followed by its address once it
 * serves clients, and stops cleanly on SIGTERM, keeping its data. Exit status 2: the command line
 * is wrong.
 */
public final class BrokerMain {

    public static final String RUNNING = "broker: RUNNING";
    private static final String USAGE = "usage: BrokerMain --data-dir DIR --port PORT --controller-port PORT\n";
    private static final List<String> OPTIONS = List.of("--data-dir", "--port", "--controller-port");

    private BrokerMain() {
    }

    public static void main(String[] args) throws InterruptedException {
        Map<String, String> options;
        try {
            options = parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println("broker: " + e.getMessage());
            System.err.print(USAGE);
            System.exit(2);
            return;
        }
        EmbeddedKafka kafka = EmbeddedKafka.startIn(Path.of(options.get("--data-dir")),
                Integer.parseInt(options.get("--port")), Integer.parseInt(options.get("--controller-port")));
        Runtime.getRuntime().addShutdownHook(new Thread(kafka::close, "broker-shutdown"));
        System.out.println(RUNNING + " " + kafka.bootstrapServers() + " (data " + kafka.dataDir() + ")");
        // The broker's own threads keep the JVM alive; this one has nothing more to do.
        Thread.currentThread().join();
    }

    static Map<String, String> parse(String[] args) {
        Map<String, String> options = new HashMap<>();
        for (int i = 0; i < args.length; i += 2) {
            if (!OPTIONS.contains(args[i]) || i + 1 >= args.length) {
                throw new IllegalArgumentException("unknown option or missing value: " + args[i]);
            }
            options.put(args[i], args[i + 1]);
        }
        for (String option : OPTIONS) {
            if (!options.containsKey(option)) {
                throw new IllegalArgumentException(option + " is required");
            }
        }
        for (String port : List.of("--port", "--controller-port")) {
            if (!options.get(port).matches("[1-9][0-9]{0,4}")) {
                throw new IllegalArgumentException(port + " must be a port number, was " + options.get(port));
            }
        }
        return options;
    }
}
