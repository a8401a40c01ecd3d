package io.gpuledger.cli;

import io.gpuledger.broker.EmbeddedKafka;
import io.gpuledger.model.TopicAdmin;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
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

    private static final int GPUS = 8;

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
        long ticksPerSecond = clockTicks();
        try (EmbeddedKafka kafka = EmbeddedKafka.start()) {
            TopicAdmin.ensureTopics(kafka.bootstrapServers(), 3);
            Process agent = startAgent(home, work, kafka.bootstrapServers());
            try {
                out.printf("agent pid %d, %d GPUs, 1 sample/s each; warm-up %d s, measuring %d s%n",
                        agent.pid(), GPUS, warmup, seconds);
                Thread.sleep(warmup * 1000L);
                ProcStat start = ProcStat.read(agent.pid());
                long startNanos = System.nanoTime();
                List<Long> rssKb = new ArrayList<>();
                for (int s = 0; s < seconds && agent.isAlive(); s++) {
                    Thread.sleep(1000);
                    rssKb.add(ProcStat.rssKb(agent.pid()));
                }
                if (!agent.isAlive()) {
                    out.println("the agent stopped early; its output: " + work.resolve("agent.log"));
                    return 1;
                }
                ProcStat end = ProcStat.read(agent.pid());
                double wall = (System.nanoTime() - startNanos) / 1e9;
                double agentCpu = (end.ownTicks() - start.ownTicks()) / (double) ticksPerSecond / wall;
                double childCpu = (end.childTicks() - start.childTicks()) / (double) ticksPerSecond / wall;
                long maxRss = rssKb.stream().mapToLong(Long::longValue).max().orElse(0);
                double meanRss = rssKb.stream().mapToLong(Long::longValue).average().orElse(0);
                out.println();
                out.println("| measure | value | target |");
                out.println("|---|---|---|");
                out.printf("| agent CPU (share of one core) | %.2f%% | < 1%% |%n", agentCpu * 100);
                out.printf("| nvidia-smi stand-in CPU, for reference | %.2f%% | - |%n", childCpu * 100);
                out.printf("| agent resident memory, mean | %.1f MB | - |%n", meanRss / 1024);
                out.printf("| agent resident memory, max | %.1f MB | < 80 MB |%n", maxRss / 1024.0);
                out.println();
                out.printf("agent at 1 sample/s on %d GPUs: %.2f%% of one core, %.0f MB resident (targets < 1%%, < 80 MB)%n",
                        GPUS, agentCpu * 100, maxRss / 1024.0);
                return 0;
            } finally {
                agent.destroy();
                agent.waitFor(15, TimeUnit.SECONDS);
                if (agent.isAlive()) {
                    agent.destroyForcibly();
                }
            }
        } finally {
            try (Stream<Path> files = Files.walk(work)) {
                files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
            }
        }
    }

    private static Process startAgent(Path home, Path work, String bootstrap) throws IOException {
        StringBuilder csv = new StringBuilder("index, uuid, name, utilization.gpu [%], memory.used [MiB], power.draw [W]\n");
        for (int i = 0; i < GPUS; i++) {
            csv.append(String.format("%d, GPU-%08d-0000-4000-8000-000000000000, NVIDIA H100 80GB HBM3, %d %%, %d MiB, %.2f W%n",
                    i, i, 40 + i * 5, 20_000 + i * 1000, 300.0 + i));
        }
        Path output = Files.writeString(work.resolve("nvidia-smi.csv"), csv.toString());
        // Like the agent's default nvidia-smi command, the stand-in runs in loop mode: one process, a block a second.
        Path command = Files.writeString(work.resolve("nvidia-smi"),
                "#!/bin/sh\nwhile true; do cat '" + output + "'; sleep 1; done\n");
        command.toFile().setExecutable(true);

        List<String> java = new ArrayList<>();
        java.add(ProcessHandle.current().info().command().orElse("java"));
        Files.readAllLines(home.resolve("deploy/agent/jvm.options"), StandardCharsets.UTF_8).stream()
                .map(String::strip).filter(line -> !line.isEmpty() && !line.startsWith("#")).forEach(java::add);
        Path jar = home.resolve("ingest/target/gpu-ledger-agent.jar");
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("the agent jar is not built: " + jar + " (run ./mvnw package)");
        }
        java.addAll(List.of("-jar", jar.toString()));
        ProcessBuilder builder = new ProcessBuilder(java).redirectErrorStream(true)
                .redirectOutput(work.resolve("agent.log").toFile());
        builder.environment().put("KAFKA_BOOTSTRAP_SERVERS", bootstrap);
        builder.environment().put("GPULEDGER_CLOUD", "none");
        builder.environment().put("GPULEDGER_INSTANCE_TYPE", "p5.48xlarge");
        builder.environment().put("GPULEDGER_PROVIDER", "aws");
        builder.environment().put("GPULEDGER_REGION", "us-east-1");
        builder.environment().put("GPULEDGER_LIFECYCLE", "on-demand");
        builder.environment().put("GPULEDGER_INTERVAL", "1");
        builder.environment().put("GPULEDGER_DCGM_ENABLED", "false");
        builder.environment().put("GPULEDGER_PROGRESS_PORT", "0");
        builder.environment().put("GPULEDGER_NVIDIA_SMI_COMMAND", command + " --loop-ms=1000");
        builder.environment().put("GPULEDGER_SPOOL_DIR", work.resolve("spool").toString());
        return builder.start();
    }

    private static long clockTicks() {
        try {
            Process getconf = new ProcessBuilder("getconf", "CLK_TCK").start();
            String value = new String(getconf.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            getconf.waitFor(5, TimeUnit.SECONDS);
            return Long.parseLong(value);
        } catch (Exception e) {
            return 100;
        }
    }

    /** CPU ticks of a process from /proc/PID/stat: its own (user + system) and its waited-for children's. */
    private record ProcStat(long ownTicks, long childTicks) {

        static ProcStat read(long pid) throws IOException {
            String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
            // Fields after the command name in parentheses, which may itself hold spaces.
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            long utime = Long.parseLong(fields[11]);
            long stime = Long.parseLong(fields[12]);
            long cutime = Long.parseLong(fields[13]);
            long cstime = Long.parseLong(fields[14]);
            return new ProcStat(utime + stime, cutime + cstime);
        }

        static long rssKb(long pid) throws IOException {
            for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
            return 0;
        }
    }
}
