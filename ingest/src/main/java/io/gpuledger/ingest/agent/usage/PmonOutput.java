package io.gpuledger.ingest.agent.usage;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Reads {@code nvidia-smi pmon -s um}: one row per process and GPU, or a row of dashes for a GPU with none, in
 * blocks, one per sample (one a second with {@code -d 1}). Its columns changed with the driver (545 widened
 * them; 550 added {@code jpg} and {@code ofa}; later drivers print {@code ccpm} after {@code fb}), so they are
 * found by the header line's names ({@code # gpu pid type sm mem ... fb ... command}), never by position. The
 * last column, the command, may hold spaces. {@code -} is "no reading". A line that cannot be read is skipped and
 * said in the errors.
 *
 * <p>A process's SM share is its mean over the blocks of its GPU: the sum of its {@code sm} readings over the
 * number of blocks that list the GPU, a block where it is absent or shows {@code -} counting 0 (it ran no kernel
 * then, or had not started or had ended); null where no block gave it a reading. Its memory is its last reading.
 * A block ends where a header line comes again, where a GPU's index is lower than the row before's (pmon lists
 * GPUs in order), or where a GPU already in the block comes again other than as one more process right after its
 * others: a process (or idle GPU) listed again, a GPU's row of dashes after its processes or its processes after
 * its row of dashes. So blocks are told apart whether pmon repeats its header or not, and on a GPU pmon watches
 * alone. Only where every process of a lone GPU changes from one sample to the next, with no idle sample between,
 * do the two samples read as one.
 */
public final class PmonOutput {

    /** One process on one GPU: its mean SM share over the blocks, its last memory reading. */
    public record Row(int gpuIndex, int pid, Double smRatio, Double memoryBytes) {
    }

    /**
     * The rows read, one message per line that could not be, and the GPUs of those lines ({@link #ANY_GPU} for a
     * line whose GPU cannot be told): a process of theirs may lack its readings.
     */
    public record Result(List<Row> rows, List<String> errors, Set<Integer> unreadGpus) {

        public Result(List<Row> rows, List<String> errors) {
            this(rows, errors, Set.of());
        }
    }

    /** The GPU of a line that names none that can be read. */
    public static final int ANY_GPU = -1;

    private static final double MIB = 1024.0 * 1024.0;
    /** The pid of a GPU's row of dashes. */
    private static final int NO_PROCESS = -1;

    private PmonOutput() {
    }

    public static Result parse(String output) {
        List<String> errors = new ArrayList<>();
        Set<Integer> unreadGpus = new HashSet<>();
        Map<String, Process> processes = new LinkedHashMap<>();
        Map<Integer, Integer> blocksOfGpu = new HashMap<>();
        Set<String> inBlock = new HashSet<>();
        Set<Integer> gpusInBlock = new HashSet<>();
        int lastGpu = -1;
        int lastPid = NO_PROCESS;
        List<String> columns = null;
        String[] lines = output.split("\r?\n");
        for (int number = 1; number <= lines.length; number++) {
            String line = lines[number - 1].strip();
            if (line.isEmpty()) {
                continue;
            }
            if (line.startsWith("#")) {
                List<String> names = Arrays.asList(line.substring(1).strip().toLowerCase(Locale.ROOT).split("\\s+"));
                if (names.contains("pid")) {
                    columns = names;
                    inBlock.clear();
                    gpusInBlock.clear();
                    lastGpu = -1;
                    lastPid = NO_PROCESS;
                }
                continue;
            }
            if (columns == null) {
                errors.add("pmon line " + number + ": a row before any header line, skipped: " + line);
                continue;
            }
            Line read;
            try {
                read = line(columns, line.split("\\s+"));
            } catch (IllegalArgumentException e) {
                errors.add("pmon line " + number + ": " + e.getMessage() + ", skipped: " + line);
                unreadGpus.add(gpuOf(columns, line));
                continue;
            }
            String key = read.gpu() + "|" + read.pid();
            boolean listedAgain = gpusInBlock.contains(read.gpu())
                    && !nextProcess(read, key, lastGpu, lastPid, inBlock);
            if (read.gpu() < lastGpu || listedAgain) {
                inBlock.clear();
                gpusInBlock.clear();
            }
            inBlock.add(key);
            lastGpu = read.gpu();
            lastPid = read.pid();
            if (gpusInBlock.add(read.gpu())) {
                blocksOfGpu.merge(read.gpu(), 1, Integer::sum);
            }
            if (read.pid() != NO_PROCESS) {
                processes.computeIfAbsent(key, k -> new Process(read.gpu(), read.pid())).add(read);
            }
        }
        List<Row> rows = processes.values().stream()
                .map(process -> process.row(blocksOfGpu.get(process.gpu))).toList();
        return new Result(rows, errors, Set.copyOf(unreadGpus));
    }

    /** The GPU index a line names in its {@code gpu} column; {@link #ANY_GPU} where it names none. */
    private static int gpuOf(List<String> columns, String line) {
        String[] cells = line.split("\\s+");
        int gpu = columns.indexOf("gpu");
        try {
            return gpu >= 0 && gpu < cells.length ? Integer.parseInt(cells[gpu]) : ANY_GPU;
        } catch (NumberFormatException e) {
            return ANY_GPU;
        }
    }

    /**
     * Whether a row of a GPU the block already lists continues the same sample: only a process not yet listed, right
     * after a process row of the same GPU (pmon prints a GPU's processes together, or one row of dashes for it).
     */
    private static boolean nextProcess(Line read, String key, int lastGpu, int lastPid, Set<String> inBlock) {
        return read.gpu() == lastGpu && lastPid != NO_PROCESS && read.pid() != NO_PROCESS && !inBlock.contains(key);
    }

    /** One row as printed: a process's readings, or a GPU's row of dashes ({@link #NO_PROCESS}). */
    private record Line(int gpu, int pid, Double smRatio, Double memoryBytes) {
    }

    /** What the blocks said of one process on one GPU. */
    private static final class Process {
        private final int gpu;
        private final int pid;
        private double smSum;
        private boolean smRead;
        private Double memoryBytes;

        private Process(int gpu, int pid) {
            this.gpu = gpu;
            this.pid = pid;
        }

        private void add(Line line) {
            if (line.smRatio() != null) {
                smSum += line.smRatio();
                smRead = true;
            }
            if (line.memoryBytes() != null) {
                memoryBytes = line.memoryBytes();
            }
        }

        private Row row(int blocks) {
            return new Row(gpu, pid, smRead ? smSum / blocks : null, memoryBytes);
        }
    }

    private static Line line(List<String> columns, String[] cells) {
        int gpu = columns.indexOf("gpu");
        int pid = columns.indexOf("pid");
        if (gpu < 0) {
            throw new IllegalArgumentException("the header names no gpu column");
        }
        // The command, last, may hold spaces: every column before it must be there.
        int before = columns.contains("command") ? columns.size() - 1 : columns.size();
        if (cells.length < before) {
            throw new IllegalArgumentException(cells.length + " columns where the header has " + columns.size());
        }
        int index = whole("gpu", cells[gpu]);
        if (cells[pid].equals("-")) {
            return new Line(index, NO_PROCESS, null, null);
        }
        return new Line(index, whole("pid", cells[pid]), percentAsRatio(cell(columns, cells, "sm")),
                mebibytes(cell(columns, cells, "fb")));
    }

    private static String cell(List<String> columns, String[] cells, String name) {
        int at = columns.indexOf(name);
        return at < 0 ? "-" : cells[at];
    }

    private static int whole(String column, String cell) {
        try {
            int value = Integer.parseInt(cell);
            if (value < 0) {
                throw new NumberFormatException();
            }
            return value;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(column + " '" + cell + "' is not a whole number", e);
        }
    }

    private static Double percentAsRatio(String cell) {
        Double percent = number("sm", cell);
        if (percent != null && percent > 100) {
            throw new IllegalArgumentException("sm " + cell + "% is above 100%");
        }
        return percent == null ? null : percent / 100;
    }

    private static Double mebibytes(String cell) {
        Double value = number("fb", cell);
        return value == null ? null : value * MIB;
    }

    private static Double number(String column, String cell) {
        if (cell.equals("-")) {
            return null;
        }
        try {
            double value = Double.parseDouble(cell);
            if (!(value >= 0) || Double.isInfinite(value)) {
                throw new NumberFormatException();
            }
            return value;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(column + " '" + cell + "' is not a number", e);
        }
    }
}
