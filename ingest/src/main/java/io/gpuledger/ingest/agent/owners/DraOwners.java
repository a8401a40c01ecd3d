package io.gpuledger.ingest.agent.owners;

import io.gpuledger.ingest.agent.usage.Owner;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * A process the agent cannot see (not in its process table: the agent without the host's PID namespace, or a
 * process that ended) on a GPU that one pod holds by its DRA claims works for that pod. A process the agent sees
 * is told by its own cgroup or environment, never by the GPU it runs on: one outside any pod on a pod's GPU is
 * not the pod's.
 */
public final class DraOwners implements ProcessOwners {

    private final Path procRoot;
    private final DraClaims claims;

    public DraOwners(Path procRoot, DraClaims claims) {
        this.procRoot = procRoot;
        this.claims = claims;
    }

    @Override
    public Optional<Owner> ownerOf(int pid) {
        return Optional.empty();
    }

    @Override
    public Optional<Owner> ownerOf(int pid, String gpu) {
        if (gpu == null || CgroupIdentity.of(procRoot, pid).isPresent()) {
            return Optional.empty();
        }
        return claims.holderOf(gpu);
    }

    @Override
    public List<String> drainErrors() {
        return claims.drainErrors();
    }
}
