package io.gpuledger.ingest.agent.owners;

import java.util.ArrayList;
import java.util.List;

/**
 * The failures of a service the agent asks every so often (the kubelet, the API server), each kept to be said
 * once: a service that stays away with the same failure is said once, and again only after it answered.
 */
final class SaidOnce {

    private final List<String> unsaid = new ArrayList<>();
    private String last;

    synchronized void failed(String failure) {
        if (!failure.equals(last)) {
            unsaid.add(failure);
        }
        last = failure;
    }

    synchronized void answered() {
        last = null;
    }

    /** The failures not said yet, once each. */
    synchronized List<String> drain() {
        List<String> drained = List.copyOf(unsaid);
        unsaid.clear();
        return drained;
    }
}
