package io.gpuledger.ingest.agent.usage;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * The jobs the agent names after their pods, one for the whole agent: how they are written ({@link PodJobIds}),
 * and, under {@link PodJobIds#POD}, the pod names its sources gave pods of several namespaces in one round, and so
 * one job id, each name said once. The sources that name a job after its pod (dcgm-exporter's pods, HAMi's, the
 * kubelet's, DRA claims) note each pod they name a GPU's job or user after; the agent says what it drains after
 * each round.
 */
public final class PodJobs {

    /** The most names said: a node sees few; the bound keeps a cluster of endless clashes from growing it. */
    private static final int SAID_AT_MOST = 1024;

    private final PodJobIds ids;
    /** The namespaces of the pods of each name named this round. */
    private final Map<String, Set<String>> named = new HashMap<>();
    private final Set<String> said = new HashSet<>();

    public PodJobs(PodJobIds ids) {
        this.ids = ids;
    }

    /** The job of the pod {@code pod} in {@code namespace}, as {@link PodJobIds} writes it. */
    public String jobOf(String namespace, String pod) {
        return ids.jobOf(namespace, pod);
    }

    /**
     * Notes that a GPU's job or user is named after the pod {@code pod} in {@code namespace}, and gives that job, as
     * {@link #jobOf} writes it.
     */
    public synchronized String named(String namespace, String pod) {
        if (ids == PodJobIds.POD && namespace != null && !namespace.isBlank() && !said.contains(pod)) {
            named.computeIfAbsent(pod, name -> new TreeSet<>()).add(namespace);
        }
        return jobOf(namespace, pod);
    }

    /** The names noted in several namespaces since the last call, one job id each: each name said once. */
    public synchronized List<String> drainSameNamed() {
        List<String> unsaid = new ArrayList<>();
        named.forEach((name, namespaces) -> {
            if (namespaces.size() > 1 && said.size() < SAID_AT_MOST && said.add(name)) {
                unsaid.add("pods named " + name + " in namespaces " + String.join(", ", namespaces)
                        + " get one job id '" + name + "'; " + PodJobIds.SETTING
                        + "=namespace/pod tells them apart");
            }
        });
        named.clear();
        return unsaid;
    }
}
