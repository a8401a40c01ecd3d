package io.gpuledger.processes;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The node agent as a GPU node runs it: its own jar, its production JVM settings
 * ({@code deploy/agent/jvm.options}), 8 GPUs sampled once a second. It reads a stand-in for
 * nvidia-smi that prints an 8-GPU CSV (its child, whose CPU is its own business: a real
 * nvidia-smi costs what it costs, whoever calls it) and publishes to the broker it is given.
 */
public final class NodeAgentProcess implements AutoCloseable {

    public static final int GPUS = 8;

    private final Process process;
    private final Path log;

    private NodeAgentProcess(Process process, Path log) {
        this.process = process;
        this.log = log;
    }

    /** @param home the GPU Ledger checkout, where the agent's jar and JVM settings are */
    public static NodeAgentProcess start(Path home, Path work, String bootstrap) throws IOException {
        StringBuilder csv = new StringBuilder("index, uuid, name, utilization.gpu [%], memory.used [MiB], power.draw "
                + "[W]\n");
        for (int i = 0; i < GPUS; i++) {
            csv.append(String.format("%d, GPU-%08d-0000-4000-8000-000000000000, NVIDIA H100 80GB HBM3, %d %%, %d MiB, "
                    + "%.2f W%n",
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
        Path log = work.resolve("agent.log");
        ProcessBuilder builder = new ProcessBuilder(java).redirectErrorStream(true).redirectOutput(log.toFile());
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
        return new NodeAgentProcess(builder.start(), log);
    }

    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    public Path log() {
        return log;
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        process.waitFor(15, TimeUnit.SECONDS);
        if (process.isAlive()) {
            process.destroyForcibly();
        }
    }
}
