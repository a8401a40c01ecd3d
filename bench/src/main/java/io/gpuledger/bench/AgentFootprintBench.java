package io.gpuledger.bench;

import io.gpuledger.broker.EmbeddedKafka;
import io.gpuledger.cli.UsageException;
import io.gpuledger.model.TopicAdmin;
import io.gpuledger.processes.NodeAgentProcess;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Stream;

/**
 * {@code gpu-ledger bench agent [--seconds N] [--warmup N]}: CPU and resident memory of the node
 * agent sampling 8 GPUs once a second, publishing to an embedded broker in this JVM. The agent
 * runs as its own process, from its own jar with its production JVM settings
 * ({@code deploy/agent/jvm.options});
 * it reads a stand-in for nvidia-smi that prints an 8-GPU CSV, whose own CPU is reported apart
 * (a real nvidia-smi costs what it costs, whoever calls it). Linux only: it reads /proc.
 */
final class AgentFootprintBench {

    private AgentFootprintBench() {
    }

    static int run(String[] args, PrintStream out) throws Exception {
        int seconds = 120;
        int warmup = 60;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "--seconds" -> seconds = Integer.parseInt(args[i + 1]);
                case "--warmup" -> warmup = Integer.parseInt(args[i + 1]);
                default -> throw new UsageException("unknown option '" + args[i] + "'");
            }
        }
        Path home = Path.of(System.getProperty("gpuledger.home", ".")).toAbsolutePath();
        Path work = Files.createTempDirectory("gpu-ledger-bench-agent-");
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            TopicAdmin.ensureTopics(kafka.bootstrapServers(), 3);
            try (NodeAgentProcess agent = NodeAgentProcess.start(home, work, kafka.bootstrapServers())) {
                out.printf("agent pid %d, %d GPUs, 1 sample/s each; warm-up %d s, measuring %d s%n",
                        agent.pid(), NodeAgentProcess.GPUS, warmup, seconds);
                Thread.sleep(warmup * 1000L);
                Footprint.Usage usage;
                try {
                    usage = Footprint.measure(Map.of("agent", agent.pid()), seconds).of("agent");
                } catch (IllegalStateException e) {
                    out.println("the agent stopped early; its output: " + agent.log());
                    return 1;
                }
                out.println();
                out.println("| measure | value | target |");
                out.println("|---|---|---|");
                out.printf("| agent CPU (share of one core) | %.2f%% | < 1%% |%n", usage.cores() * 100);
                out.printf("| nvidia-smi stand-in CPU, for reference | %.2f%% | - |%n",
                        usage.childCpuSeconds() / usage.seconds() * 100);
                out.printf("| agent resident memory, mean | %.1f MB | - |%n", usage.steadyKb() / 1024);
                out.printf("| agent resident memory, max | %.1f MB | < 80 MB |%n", usage.maxKb() / 1024.0);
                out.println();
                out.printf("agent at 1 sample/s on %d GPUs: %.2f%% of one core, %.0f MB resident (targets < 1%%, < 80 "
                        + "MB)%n",
                        NodeAgentProcess.GPUS, usage.cores() * 100, usage.maxKb() / 1024.0);
                return 0;
            }
        } finally {
            try (Stream<Path> files = Files.walk(work)) {
                files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
            }
        }
    }
}
