package io.gpuledger.ingest.agent.usage;

import io.gpuledger.ingest.agent.collect.NvidiaSmiGpus;
import io.gpuledger.ingest.agent.collect.NvidiaSmiGpus.Gpu;
import io.gpuledger.ingest.agent.collect.ShellCommand;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;

/**
 * NVML's per-process samples through nvidia-smi: the compute processes of each GPU and the memory each holds
 * ({@link ComputeApps}), each one's share of SM time over the interval ({@link PmonOutput}: the mean of pmon's
 * samples, one a second), and each GPU's index, memory and MIG mode. A process pmon lists without an SM
 * reading ({@code -}) ran no kernel in its window: 0. pmon watches at most four GPUs and reads nothing on a
 * MIG-mode GPU: there a process's SM time is not measured (null), and the split falls back to memory. A
 * MIG-mode GPU's processes are left out: nvidia-smi does not say which slice each one runs on.
 *
 * <p>Each run of nvidia-smi costs the node a process: the GPU list is asked for only when some GPU has a compute
 * process, and pmon only when some GPU has several, the only case whose split needs their SM time. A read that
 * finds a shared GPU starts pmon for the interval ahead ({@code -d 1 -c <seconds>}, on a thread of its own) and
 * the next read takes its samples; the first read of a shared GPU has none yet and takes one sample of the last
 * second ({@link #PMON}). A run that fails or has not ended 3 s after the round leaves the round without SM times
 * (the split falls back to memory), and so does a GPU with a pmon line that cannot be read; a run started more than
 * an interval and a half before the read (a round between asked other sources) is dropped for a sample of the last
 * second.
 *
 * <p>The MPS server ({@code nvidia-cuda-mps-server}), which nvidia-smi lists beside its clients, is not a user of
 * the GPU. A run that ends with an error status after printing what it could (one GPU lost, the others listed) is
 * read, and its status said. A node without nvidia-smi is not asked for the next {@link #RETRY_MISSING_ROUNDS}
 * reads, then asked again: the driver's container may put it in place after the agent started.
 */
public final class NvidiaSmiProcesses implements UsageSource {

    /** Runs nvidia-smi with the given arguments and returns what it printed. */
    @FunctionalInterface
    public interface Runner {
        String run(String arguments) throws IOException;

        /**
         * Runs it on a thread of its own: what it prints comes when it ends. Cancelling it interrupts the thread,
         * which stops the program.
         */
        default CompletableFuture<String> start(String arguments) {
            CompletableFuture<String> output = new CompletableFuture<>();
            Thread thread = new Thread(() -> {
                try {
                    output.complete(run(arguments));
                } catch (IOException | RuntimeException e) {
                    output.completeExceptionally(e);
                }
            }, "nvidia-smi-pmon");
            thread.setDaemon(true);
            output.whenComplete((printed, failure) -> {
                if (output.isCancelled()) {
                    thread.interrupt();
                }
            });
            thread.start();
            return output;
        }
    }

    /** One sample of the last second: the first round of a shared GPU, before a run over an interval has ended. */
    static final String PMON = "pmon -s um -c 1";

    /** How long a round waits for a pmon run over the interval that has not ended yet. */
    private static final Duration PMON_LATE = Duration.ofSeconds(3);
    /** Reads in which a missing program is not asked for, before it is asked again. */
    static final int RETRY_MISSING_ROUNDS = 30;

    /**
     * What a run that ended with an error status printed on its standard output: what it could read, such as the
     * processes of the GPUs it could reach.
     */
    public static final class PartialOutput extends IOException {
        private final String printed;

        public PartialOutput(String message, String printed) {
            super(message);
            this.printed = printed;
        }

        public String printed() {
            return printed;
        }
    }

    private final Runner runner;
    private final boolean sayMissing;
    private final Duration interval;
    private final String pmonOverInterval;
    private final LongSupplier nanoTime;
    /** Rounds left before a missing program is asked for again; 0 while it is not known missing. */
    private int roundsUntilRetry;
    /** Whether its being missing was said: once, until it is found again. */
    private boolean saidMissing;
    /** pmon sampling the interval until the next read, started by the last read that found a shared GPU. */
    private CompletableFuture<String> pmonRunning;
    /** When {@link #pmonRunning} started ({@link System#nanoTime}). */
    private long pmonStartedNanos;

    /** Its SM times over one second: {@link #PMON} each round. */
    public NvidiaSmiProcesses(Runner runner, boolean sayMissing) {
        this(runner, Duration.ofSeconds(1), sayMissing);
    }

    /**
     * @param interval   the time between two reads, which pmon samples once a second
     * @param sayMissing whether a missing program is an error (said once) or simply no source, as on a node
     *                   without it
     */
    public NvidiaSmiProcesses(Runner runner, Duration interval, boolean sayMissing) {
        this(runner, interval, sayMissing, System::nanoTime);
    }

    NvidiaSmiProcesses(Runner runner, Duration interval, boolean sayMissing, LongSupplier nanoTime) {
        this.runner = runner;
        this.sayMissing = sayMissing;
        this.interval = interval;
        this.pmonOverInterval = pmonOver(interval);
        this.nanoTime = nanoTime;
    }

    /**
     * Runs {@code program ARGUMENTS} through {@code /bin/sh -c}, at most {@code timeout} each time (pmon over an
     * interval, the interval more).
     */
    public static NvidiaSmiProcesses of(String program, Duration timeout, Duration interval, boolean sayMissing) {
        return new NvidiaSmiProcesses(arguments -> {
            String command = program + " " + arguments;
            ShellCommand.Output output = ShellCommand.outputOf(command,
                    arguments.startsWith("pmon") ? timeout.plus(interval) : timeout);
            if (output.exitCode() == 0) {
                return output.stdout();
            }
            IOException failed = ShellCommand.failed(command, output);
            throw output.stdout().isBlank() ? failed : new PartialOutput(failed.getMessage(), output.stdout());
        }, interval, sayMissing);
    }

    /**
     * pmon's samples, one a second, for as many whole seconds of the interval as end before the next read: one
     * less than the interval's, so that the run has ended when the next round asks for it.
     */
    static String pmonOver(Duration interval) {
        long seconds = Math.max(1, interval.toSeconds() - 1);
        return "pmon -s um -d 1 -c " + seconds;
    }

    @Override
    public String name() {
        return "nvidia-smi-processes";
    }

    @Override
    public Result read() {
        if (roundsUntilRetry > 0) {
            roundsUntilRetry--;
            return new Result(Map.of(), List.of());
        }
        // A run started for the last interval speaks for this round alone: a round without a shared GPU drops it,
        // and one that comes rounds later (others asked meanwhile) too.
        CompletableFuture<String> running = pmonRunning;
        pmonRunning = null;
        if (running != null && nanoTime.getAsLong() - pmonStartedNanos > interval.toNanos() * 3 / 2) {
            running.cancel(true);
            running = null;
        }
        List<String> errors = new ArrayList<>();
        NvidiaSmiGpus.Result gpus;
        List<ComputeApps.Row> apps;
        try {
            ComputeApps.Result listed = ComputeApps.parse(printed(ComputeApps.QUERY, errors));
            saidMissing = false;
            errors.addAll(listed.errors());
            // The MPS server runs its clients' work, listed too: it is none of the GPU's users.
            apps = listed.rows().stream().filter(app -> !app.mpsServer()).toList();
            if (apps.isEmpty()) {
                return new Result(Map.of(), errors);
            }
            gpus = NvidiaSmiGpus.parse(printed(NvidiaSmiGpus.QUERY, errors));
            errors.addAll(gpus.errors());
        } catch (ShellCommand.ProgramMissing e) {
            roundsUntilRetry = RETRY_MISSING_ROUNDS;
            boolean say = sayMissing && !saidMissing;
            saidMissing = true;
            return say ? Result.failed("nvidia-smi processes: " + e.getMessage() + "; processes are not read,"
                    + " asked again after " + RETRY_MISSING_ROUNDS + " reads") : new Result(Map.of(), List.of());
        } catch (IOException e) {
            errors.add(0, "nvidia-smi processes: " + e.getMessage());
            return new Result(Map.of(), errors);
        }
        PmonOutput.Result pmon = new PmonOutput.Result(List.of(), List.of());
        if (shared(apps)) {
            try {
                pmon = PmonOutput.parse(running == null ? printed(PMON, errors) : ended(running, errors));
            } catch (IOException e) {
                errors.add("nvidia-smi pmon: " + e.getMessage() + "; processes' SM time not measured");
            }
            pmonRunning = runner.start(pmonOverInterval);
            pmonStartedNanos = nanoTime.getAsLong();
        }
        errors.addAll(pmon.errors());
        return new Result(users(gpus, apps, pmon), errors);
    }

    /** What a run printed; one that ended with an error status after printing is read too, and its status said. */
    private String printed(String arguments, List<String> errors) throws IOException {
        try {
            return runner.run(arguments);
        } catch (PartialOutput e) {
            errors.add("nvidia-smi processes: " + e.getMessage() + "; what it printed is read");
            return e.printed();
        }
    }

    /** Stops a pmon run still sampling, so that none outlives the agent. */
    @Override
    public void close() {
        CompletableFuture<String> running = pmonRunning;
        pmonRunning = null;
        if (running != null) {
            running.cancel(true);
        }
    }

    /** What the pmon run over the interval printed; it ended before this round, or ends within seconds. */
    private static String ended(CompletableFuture<String> running, List<String> errors) throws IOException {
        try {
            return running.get(PMON_LATE.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            running.cancel(true);
            throw new IOException("the run over the interval had not ended " + PMON_LATE.toSeconds()
                    + " s after the round", e);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof PartialOutput partial) {
                errors.add("nvidia-smi pmon: " + partial.getMessage() + "; what it printed is read");
                return partial.printed();
            }
            throw e.getCause() instanceof IOException io ? io : new IOException(e.getCause().toString(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    /** Whether some GPU has more than one process. */
    private static boolean shared(List<ComputeApps.Row> apps) {
        Set<String> seen = new HashSet<>();
        return apps.stream().anyMatch(app -> !seen.add(app.gpuUuid()));
    }

    private static Map<String, GpuUsers> users(NvidiaSmiGpus.Result listed, List<ComputeApps.Row> apps,
            PmonOutput.Result pmon) {
        Map<String, Gpu> gpus = listed.byUuid();
        Map<Integer, String> uuidByIndex = listed.uuidsByIndex();
        Map<String, Double> smByProcess = new HashMap<>();
        Set<String> watched = new HashSet<>();
        for (PmonOutput.Row row : pmon.rows()) {
            String uuid = uuidByIndex.get(row.gpuIndex());
            if (uuid != null) {
                watched.add(uuid);
                smByProcess.put(uuid + "|" + row.pid(), row.smRatio() == null ? 0.0 : row.smRatio());
            }
        }
        // A process whose line could not be read has no reading, not none: its GPU's SM times are not measured.
        if (pmon.unreadGpus().contains(PmonOutput.ANY_GPU)) {
            watched.clear();
        }
        pmon.unreadGpus().forEach(index -> watched.remove(uuidByIndex.get(index)));
        Map<String, List<GpuUser>> byGpu = new LinkedHashMap<>();
        for (ComputeApps.Row app : apps) {
            Gpu gpu = gpus.get(app.gpuUuid());
            if (gpu != null && gpu.mig()) {
                continue;
            }
            Double sm = watched.contains(app.gpuUuid()) && (gpu == null || !gpu.mig())
                    ? smByProcess.getOrDefault(app.gpuUuid() + "|" + app.pid(), 0.0) : null;
            byGpu.computeIfAbsent(app.gpuUuid(), k -> new ArrayList<>())
                    .add(GpuUser.process(app.pid(), sm, app.memoryBytes()));
        }
        Map<String, GpuUsers> users = new LinkedHashMap<>();
        byGpu.forEach((uuid, list) -> {
            Gpu gpu = gpus.get(uuid);
            users.put(uuid, new GpuUsers(uuid, "nvidia-smi", list, gpu == null ? null : gpu.memoryBytes()));
        });
        return users;
    }
}
