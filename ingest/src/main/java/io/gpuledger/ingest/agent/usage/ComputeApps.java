package io.gpuledger.ingest.agent.usage;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * Reads {@code nvidia-smi --query-compute-apps=gpu_uuid,pid,used_memory,name --format=csv}: a header
 * ({@code gpu_uuid, pid, used_gpu_memory [MiB], process_name}; {@code used_memory} and {@code name} are printed
 * under their other names) and one row per process and GPU. Columns are found by the header's names; memory with
 * or without its unit; {@code [N/A]} (a GPU that does not say, such as a MIG slice on some drivers) is "no
 * reading"; a name, last, may hold commas. A row that cannot be read is skipped and said in the errors.
 */
public final class ComputeApps {

    /** The command's query, as the agent runs it. */
    public static final String QUERY = "--query-compute-apps=gpu_uuid,pid,used_memory,name --format=csv";

    /** The MPS server's program: it runs its clients' work in a context of its own, and nvidia-smi lists it. */
    static final String MPS_SERVER = "nvidia-cuda-mps-server";

    /**
     * One process on one GPU.
     *
     * @param processName its program as nvidia-smi names it; null where the output has no name
     */
    public record Row(String gpuUuid, int pid, Double memoryBytes, String processName) {

        public Row(String gpuUuid, int pid, Double memoryBytes) {
            this(gpuUuid, pid, memoryBytes, null);
        }

        /**
         * Whether it is the MPS server, which holds the GPU's context for its clients (listed too, since Volta, with
         * their own memory and SM time): it is no user of the GPU but the place they run.
         */
        public boolean mpsServer() {
            return processName != null
                    && processName.substring(processName.lastIndexOf('/') + 1).equals(MPS_SERVER);
        }
    }

    public record Result(List<Row> rows, List<String> errors) {
    }

    private ComputeApps() {
    }

    public static Result parse(String output) {
        List<Row> rows = new ArrayList<>();
        List<String> errors = new ArrayList<>();
        List<String> columns = null;
        String[] lines = output.split("\r?\n");
        for (int number = 1; number <= lines.length; number++) {
            String line = lines[number - 1].strip();
            if (line.isEmpty()) {
                continue;
            }
            // A process's name, the last column, may hold commas: the cells past the header's are its.
            int limit = columns != null && columns.get(columns.size() - 1).equals("process_name") ? columns.size() : -1;
            List<String> cells = Arrays.stream(line.split(",", limit)).map(String::strip).toList();
            if (cells.contains("pid")) {
                columns = cells.stream().map(ComputeApps::columnName).toList();
                continue;
            }
            if (columns == null) {
                errors.add("compute-apps line " + number + ": a row before the header, skipped: " + line);
                continue;
            }
            try {
                rows.add(row(columns, cells));
            } catch (IllegalArgumentException e) {
                errors.add("compute-apps line " + number + ": " + e.getMessage() + ", skipped: " + line);
            }
        }
        return new Result(rows, errors);
    }

    private static Row row(List<String> columns, List<String> cells) {
        if (cells.size() != columns.size()) {
            throw new IllegalArgumentException(cells.size() + " values where the header has " + columns.size());
        }
        int uuid = columns.indexOf("gpu_uuid");
        int pid = columns.indexOf("pid");
        int memory = columns.indexOf("used_gpu_memory");
        if (uuid < 0 || pid < 0) {
            throw new IllegalArgumentException("the header names no gpu_uuid or pid column");
        }
        String gpu = cells.get(uuid);
        if (!gpu.startsWith("GPU-") && !gpu.startsWith("MIG-")) {
            throw new IllegalArgumentException("'" + gpu + "' is not a GPU UUID");
        }
        int name = columns.indexOf("process_name");
        return new Row(gpu, pid(cells.get(pid)), memory < 0 ? null : mebibytes(cells.get(memory)),
                name < 0 ? null : cells.get(name));
    }

    private static String columnName(String header) {
        String name = header.replaceAll("\\s*\\[.*]$", "").strip().toLowerCase(Locale.ROOT);
        return switch (name) {
            case "used_memory" -> "used_gpu_memory";
            case "name" -> "process_name";
            default -> name;
        };
    }

    private static int pid(String cell) {
        try {
            int pid = Integer.parseInt(cell);
            if (pid <= 0) {
                throw new NumberFormatException();
            }
            return pid;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("pid '" + cell + "' is not a process id", e);
        }
    }

    private static Double mebibytes(String cell) {
        if (cell.startsWith("[") || cell.equalsIgnoreCase("N/A")) {
            return null;
        }
        String number = cell.replaceFirst("(?i)\\s*MiB$", "");
        try {
            double value = Double.parseDouble(number);
            if (!(value >= 0) || Double.isInfinite(value)) {
                throw new NumberFormatException();
            }
            return value * 1024 * 1024;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("used memory '" + cell + "' is not a number of MiB", e);
        }
    }
}
