package io.gpuledger.ingest.agent.usage;

import java.util.Optional;

/**
 * The job and team of a pod named by its namespace and name, as its labels give them (the kubelet's pods, with
 * {@code kubelet.job-labels} and {@code kubelet.team-labels}): for a source that sees pods by name alone (HAMi's),
 * so that it names a pod's job as the sources that find the pod by its UID do.
 */
@FunctionalInterface
public interface PodOwners {

    /** The pod's owner, noted as named where its job is named after it; empty where the pod is not listed (yet). */
    Optional<Owner> ownerOf(String namespace, String pod);

    /** No pod listed: each is named after itself. */
    static PodOwners none() {
        return (namespace, pod) -> Optional.empty();
    }
}
