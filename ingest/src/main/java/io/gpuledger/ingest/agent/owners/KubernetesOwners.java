package io.gpuledger.ingest.agent.owners;

import io.gpuledger.ingest.agent.usage.Owner;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** A process in a pod works for that pod's job: its cgroup names the pod, the kubelet the pod's labels. */
public final class KubernetesOwners implements ProcessOwners {

    private final Path procRoot;
    private final KubeletPods pods;

    public KubernetesOwners(Path procRoot, KubeletPods pods) {
        this.procRoot = procRoot;
        this.pods = pods;
    }

    @Override
    public Optional<Owner> ownerOf(int pid) {
        return CgroupIdentity.of(procRoot, pid).map(CgroupIdentity::podUid).flatMap(pods::ownerOf);
    }

    @Override
    public List<String> drainErrors() {
        return pods.drainErrors();
    }
}
