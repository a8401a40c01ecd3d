package io.gpuledger.ingest.agent.owners;

import io.gpuledger.ingest.agent.usage.Owner;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * A process Slurm started works for its Slurm job: the job its cgroup names (Slurm's cgroup plugin,
 * {@code .../job_<id>/step_<step>}), with {@code SLURM_JOB_ACCOUNT} from its environment ({@code /proc/<pid>/environ})
 * as its team where that environment names the same job; where no cgroup names a job (Slurm without its cgroup
 * plugin), {@code SLURM_JOB_ID} and {@code SLURM_JOB_ACCOUNT} from its environment. The cgroup comes first: anyone
 * can set an environment (a pod's spec, a shell on the node), while only Slurm puts a process in a job's cgroup. A
 * process in a pod's cgroup that names no Slurm job is the pod's, whatever its environment says. The job's id is
 * Slurm's, as it is: a job that also reports its work names itself so. A heterogeneous job's component is the job
 * its cgroup names (its own id, {@code <leader>+<n>} in {@code sacct}), though its environment names the leader.
 */
public final class SlurmOwners implements ProcessOwners {

    private static final String JOB_ID = "SLURM_JOB_ID=";
    private static final String ACCOUNT = "SLURM_JOB_ACCOUNT=";

    private final Path procRoot;

    public SlurmOwners(Path procRoot) {
        this.procRoot = procRoot;
    }

    @Override
    public Optional<Owner> ownerOf(int pid) {
        Optional<CgroupIdentity> cgroup = CgroupIdentity.of(procRoot, pid);
        String cgroupJob = cgroup.map(CgroupIdentity::slurmJobId).orElse(null);
        if (cgroupJob == null && cgroup.map(CgroupIdentity::podUid).isPresent()) {
            return Optional.empty();
        }
        Environment environment = environment(pid);
        if (cgroupJob != null) {
            return Optional.of(new Owner(cgroupJob, cgroupJob.equals(environment.job) ? environment.account : null));
        }
        return Optional.ofNullable(environment.job).map(job -> new Owner(job, environment.account));
    }

    /** What a process's environment says of its Slurm job; nulls where it says nothing, or cannot be read. */
    private record Environment(String job, String account) {
    }

    private Environment environment(int pid) {
        byte[] environ;
        try {
            environ = Files.readAllBytes(procRoot.resolve(Integer.toString(pid)).resolve("environ"));
        } catch (IOException | SecurityException e) {
            // Only root (or the process's own user) may read it; without it, the cgroup may still tell.
            return new Environment(null, null);
        }
        String job = null;
        String account = null;
        // Variables are bytes in no set encoding, one after the other, each ended by a NUL: Slurm's are ASCII, and
        // another's bytes (a Latin-1 directory name) must not lose them.
        int start = 0;
        for (int end = 0; end <= environ.length; end++) {
            if (end < environ.length && environ[end] != 0) {
                continue;
            }
            String variable = new String(environ, start, end - start, StandardCharsets.ISO_8859_1);
            if (variable.startsWith(JOB_ID)) {
                job = valueOf(variable, JOB_ID);
            } else if (variable.startsWith(ACCOUNT)) {
                account = valueOf(variable, ACCOUNT);
            }
            start = end + 1;
        }
        return new Environment(job, account);
    }

    /** The value of {@code variable}, which starts with {@code name}; null for an empty one. */
    private static String valueOf(String variable, String name) {
        String value = variable.substring(name.length()).strip();
        return value.isEmpty() ? null : value;
    }
}
