package io.gpuledger.ingest.agent.usage;

import java.util.Optional;

/**
 * The workload of a pod of this node, by its namespace and name: the controller that made it, as its owner references
 * give it (the kubelet's pod list). Empty for a pod not listed (yet) and for one no controller made.
 */
@FunctionalInterface
public interface PodWorkloads {

    Optional<String> workloadOf(String namespace, String pod);

    /** Where no pod list is read. */
    static PodWorkloads none() {
        return (namespace, pod) -> Optional.empty();
    }
}
