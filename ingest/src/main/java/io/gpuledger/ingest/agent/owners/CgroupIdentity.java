package io.gpuledger.ingest.agent.owners;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a process's {@code /proc/<pid>/cgroup} says of who started it: the Kubernetes pod (its UID) and
 * container, or the Slurm job. Read in every form the kubelet and container runtimes write:
 * <ul>
 *   <li>cgroup v1, one line per hierarchy, and v2, the one line {@code 0::/path};</li>
 *   <li>a pod's UID as the API server gives it (8-4-4-4-12 hex digits with dashes), or a static pod's as the
 *       kubelet makes it (an MD5 of its manifest: 32 hex digits, no dashes), as the kubelet lists both;</li>
 *   <li>the cgroupfs driver, {@code /kubepods/burstable/pod<uid>/<container id>};</li>
 *   <li>the systemd driver, {@code /kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod<uid with
 *       underscores>.slice/cri-containerd-<container id>.scope} (also {@code docker-}, {@code crio-});</li>
 *   <li>Slurm's cgroup plugin, {@code /slurm/uid_<uid>/job_<id>/step_<step>} or
 *       {@code /system.slice/slurmstepd.scope/job_<id>/step_<step>}.</li>
 * </ul>
 *
 * @param podUid      the pod's UID in lower case, with dashes where it has any (the systemd driver's underscores
 *                    turned back); null when the process is in no pod
 * @param containerId the container's id (64 hex digits); null when the path names none
 * @param slurmJobId  the Slurm job's id; null when the process is in no Slurm job's cgroup
 */
public record CgroupIdentity(String podUid, String containerId, String slurmJobId) {

    /** A pod's UID: dashed (with underscores under the systemd driver), or a static pod's 32 hex digits. */
    private static final Pattern POD = Pattern.compile(
            "pod([0-9a-f]{8}[-_][0-9a-f]{4}[-_][0-9a-f]{4}[-_][0-9a-f]{4}[-_][0-9a-f]{12}|[0-9a-f]{32})(?![0-9a-f])");
    private static final Pattern CONTAINER = Pattern.compile("(?:^|[/-])([0-9a-f]{64})(?:\\.scope)?$");
    private static final Pattern SLURM_JOB = Pattern.compile("(?:^|/)job_([0-9]+)(?:/|$)");

    public static final CgroupIdentity NONE = new CgroupIdentity(null, null, null);

    /** The identity in the text of a cgroup file; {@link #NONE} when it names neither a pod nor a job. */
    public static CgroupIdentity parse(String cgroupFile) {
        String podUid = null;
        String containerId = null;
        String slurmJob = null;
        for (String line : cgroupFile.split("\n")) {
            String[] fields = line.split(":", 3);
            if (fields.length < 3) {
                continue;
            }
            String path = fields[2].strip().toLowerCase(Locale.ROOT);
            Matcher pod = POD.matcher(path);
            if (podUid == null && pod.find()) {
                podUid = pod.group(1).replace('_', '-');
            }
            Matcher container = CONTAINER.matcher(path);
            if (containerId == null && podUid != null && container.find()) {
                containerId = container.group(1);
            }
            Matcher job = SLURM_JOB.matcher(path);
            if (slurmJob == null && path.contains("slurm") && job.find()) {
                slurmJob = job.group(1);
            }
        }
        return new CgroupIdentity(podUid, containerId, slurmJob);
    }

    /** The identity of a process under {@code procRoot} (normally {@code /proc}); empty when it cannot be read. */
    public static Optional<CgroupIdentity> of(Path procRoot, int pid) {
        try {
            return Optional.of(parse(Files.readString(procRoot.resolve(Integer.toString(pid)).resolve("cgroup"),
                    StandardCharsets.UTF_8)));
        } catch (IOException | SecurityException e) {
            // The process ended, or the agent may not read it: it is no one's this round.
            return Optional.empty();
        }
    }
}
