package io.gpuledger.ingest.agent.owners;

import io.gpuledger.ingest.agent.usage.Owner;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * A process Slurm started works for its Slurm job: {@code SLURM_JOB_ID} in its environment
 * ({@code /proc/<pid>/environ}, with {@code SLURM_JOB_ACCOUNT} as its team), else the job its cgroup names
 * (Slurm's cgroup plugin). The job's id is Slurm's, as it is: a job that also reports its work names itself so.
 */
public final class SlurmOwners implements ProcessOwners {

    private final Path procRoot;

    public SlurmOwners(Path procRoot) {
        this.procRoot = procRoot;
    }

    @Override
    public Optional<Owner> ownerOf(int pid) {
        Optional<Owner> fromEnvironment = environment(pid);
        if (fromEnvironment.isPresent()) {
            return fromEnvironment;
        }
        return CgroupIdentity.of(procRoot, pid).map(CgroupIdentity::slurmJobId).map(job -> new Owner(job, null));
    }

    private Optional<Owner> environment(int pid) {
        String environ;
        try {
            environ = Files.readString(procRoot.resolve(Integer.toString(pid)).resolve("environ"),
                    StandardCharsets.UTF_8);
        } catch (IOException | SecurityException e) {
            // Only root (or the process's own user) may read it; without it, the cgroup may still tell.
            return Optional.empty();
        }
        String job = null;
        String account = null;
        for (String variable : environ.split("\0")) {
            if (variable.startsWith("SLURM_JOB_ID=")) {
                job = variable.substring("SLURM_JOB_ID=".length()).strip();
            } else if (variable.startsWith("SLURM_JOB_ACCOUNT=")) {
                account = variable.substring("SLURM_JOB_ACCOUNT=".length()).strip();
            }
        }
        return job == null || job.isEmpty() ? Optional.empty() : Optional.of(new Owner(job, account));
    }
}
