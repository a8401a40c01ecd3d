package io.gpuledger.ingest.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * A process table on disk, shaped like {@code /proc}: {@code <pid>/cgroup}, {@code <pid>/environ} and
 * {@code <pid>/stat} files.
 */
public final class ProcTree {

    /** Pod UID and container id of the cgroup paths the tests write. */
    public static final String CONTAINER_ID = "3b1c0a5e9d8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b";

    private final Path root;

    public ProcTree(Path root) {
        this.root = root;
    }

    public Path root() {
        return root;
    }

    /** A process whose {@code cgroup} file says {@code text}. */
    public ProcTree cgroup(int pid, String text) {
        write(pid, "cgroup", text);
        return this;
    }

    /** A process in a pod, as the kubelet's systemd driver writes its cgroup v2 path (containerd). */
    public ProcTree inPod(int pid, String podUid) {
        return cgroup(pid, "0::/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod"
                + podUid.replace('-', '_') + ".slice/cri-containerd-" + CONTAINER_ID + ".scope\n");
    }

    /**
     * A process whose {@code stat} file says it started {@code startTicks} clock ticks after boot (its 22nd field),
     * its command, in parentheses, holding spaces and a parenthesis as a command may.
     */
    public ProcTree started(int pid, long startTicks) {
        write(pid, "stat", pid + " (python3 (rank 0)) S 1 " + pid + " " + pid + " 0 -1 4194560 1024 0 0 0 12 3 0 0"
                + " 20 0 4 0 " + startTicks + " 8589934592 2048 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 3\n");
        return this;
    }

    /** A process that ended: its directory is gone. */
    public ProcTree ended(int pid) {
        Path dir = root.resolve(Integer.toString(pid));
        try (var files = Files.list(dir)) {
            for (Path file : files.toList()) {
                Files.delete(file);
            }
            Files.delete(dir);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return this;
    }

    /** A process whose environment holds {@code variables} (NUL-separated, as the kernel shows it). */
    public ProcTree environ(int pid, Map<String, String> variables) {
        write(pid, "environ", variables.entrySet().stream().map(e -> e.getKey() + "=" + e.getValue())
                .collect(Collectors.joining("\0", "", "\0")));
        return this;
    }

    private void write(int pid, String file, String text) {
        try {
            Path dir = Files.createDirectories(root.resolve(Integer.toString(pid)));
            Files.writeString(dir.resolve(file), text, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
