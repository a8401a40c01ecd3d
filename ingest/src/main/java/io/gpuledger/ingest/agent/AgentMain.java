package io.gpuledger.ingest.agent;

import io.gpuledger.ingest.agent.delivery.Delivery;
import io.gpuledger.ingest.agent.delivery.Spool;
import io.gpuledger.ingest.agent.delivery.SpoolSync;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;

/**
 * {@code gpu-ledger agent [--config FILE] [--once] [--dry-run]}, also the main class of the
 * agent's own jar. Exit status: 0 done, 2 configuration or usage error.
 */
public final class AgentMain {

    static final String USAGE = """
            usage: gpu-ledger agent [--config FILE] [--share-policy sm|memory|even] [--once] [--dry-run]

              --config FILE  properties file of settings (environment variables override it)
              --share-policy how a GPU used by several jobs is split among them (share.policy;
                             this option overrides the file and the environment)
              --once         one round of every collector and one notice poll, then exit
              --dry-run      print the records that would be published, one JSON object per
                             line, instead of publishing them, and write nothing on disk;
                             problems go to standard error

            settings (key, environment variable, meaning):
            """;

    private AgentMain() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.getenv(), System.out, System.err));
    }

    public static int run(String[] args, Map<String, String> env, PrintStream out, PrintStream err) {
        Optional<Path> configFile = Optional.empty();
        Map<String, String> settings = new java.util.HashMap<>(env);
        boolean once = false;
        boolean dryRun = false;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--config" -> {
                    if (i + 1 >= args.length) {
                        err.println("gpu-ledger agent: --config needs a file");
                        return 2;
                    }
                    configFile = Optional.of(Path.of(args[++i]));
                }
                case "--share-policy" -> {
                    if (i + 1 >= args.length) {
                        err.println("gpu-ledger agent: --share-policy needs sm, memory or even");
                        return 2;
                    }
                    settings.put(AgentConfig.envName("share.policy"), args[++i]);
                }
                case "--once" -> once = true;
                case "--dry-run" -> dryRun = true;
                case "--help", "-h" -> {
                    out.print(USAGE + AgentConfig.describe());
                    return 0;
                }
                default -> {
                    err.println("gpu-ledger agent: unknown option '" + args[i] + "'");
                    err.print(USAGE + AgentConfig.describe());
                    return 2;
                }
            }
        }
        try {
            AgentConfig config = AgentConfig.load(configFile, settings);
            if (dryRun) {
                return dryRun(config, once, out, err);
            }
            return publish(config, once, err);
        } catch (IllegalArgumentException e) {
            err.println("gpu-ledger agent: " + e.getMessage());
            return 2;
        }
    }

    private static int dryRun(AgentConfig config, boolean once, PrintStream out, PrintStream err) {
        RecordSink print = (topic, key, value, timestamp) -> {
            synchronized (out) {
                out.println(new String(value, StandardCharsets.UTF_8));
                out.flush();
            }
        };
        NodeAgent agent = NodeAgent.dryRun(config, print, Clock.systemUTC(), err::println);
        if (once) {
            agent.round();
            agent.pollNotices();
            // nothing it started (nvidia-smi's loop, a pmon run over the next interval) outlives the round
            agent.close();
            return 0;
        }
        return runUntilStopped(agent, () -> { }, err);
    }

    /** The agent's spool as {@code config} sets it: segments of 4 MiB, or an eighth of the bound if smaller. */
    static Spool openSpool(AgentConfig config) {
        return new Spool(Path.of(config.text("spool.dir")), config.number("spool.max-bytes"),
                Math.min(4L * 1024 * 1024, config.number("spool.max-bytes") / 8),
                SpoolSync.parse("spool.fsync", config.text("spool.fsync")));
    }

    private static int publish(AgentConfig config, boolean once, PrintStream err) {
        String bootstrap = config.text("kafka.bootstrap.servers");
        Spool spool = openSpool(config);
        spool.problems().forEach(problem -> err.println("spool: " + problem));
        Delivery delivery = new Delivery(Delivery.producer(bootstrap, "gpu-ledger-agent",
                config.number("producer.buffer-bytes")), spool, Duration.ofSeconds(1), err::println);
        NodeAgent agent = NodeAgent.create(config, new KafkaSink(delivery), Clock.systemUTC(), err::println);
        if (once) {
            agent.round();
            agent.pollNotices();
            agent.close();
            delivery.close(Duration.ofSeconds(15));
            return 0;
        }
        return runUntilStopped(agent, () -> delivery.close(Duration.ofSeconds(10)), err);
    }

    private static int runUntilStopped(NodeAgent agent, Runnable afterStop, PrintStream err) {
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            agent.close();
            afterStop.run();
            stopped.countDown();
        }, "agent-shutdown"));
        try {
            agent.start();
            err.println("gpu-ledger agent: sampling " + agent.placement() + (agent.httpPort() > 0
                    ? "; progress, health and metrics on port " + agent.httpPort() : ""));
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (java.io.IOException e) {
            err.println("gpu-ledger agent: cannot open its HTTP endpoint: " + e.getMessage());
            return 2;
        }
        return 0;
    }
}
