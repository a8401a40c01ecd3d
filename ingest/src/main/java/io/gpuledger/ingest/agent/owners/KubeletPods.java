package io.gpuledger.ingest.agent.owners;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.gpuledger.ingest.agent.usage.Owner;
import io.gpuledger.ingest.agent.usage.PodJobIds;
import io.gpuledger.ingest.agent.usage.PodJobs;
import io.gpuledger.ingest.agent.usage.PodOwners;
import io.gpuledger.ingest.agent.usage.PodWorkloads;
import io.gpuledger.ingest.http.BoundedGet;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.function.Function;

/**
 * The pods of this node as its kubelet lists them ({@code GET /pods}, read-only), by UID (as a process's cgroup names
 * its pod) and by namespace and name (as HAMi's metrics name it): a pod's job is the first of its labels named in the
 * job allow-list, else its name (or its workload's, {@link #workloadOf}) as {@link PodJobIds} writes it; its team the
 * first of the team allow-list, else its namespace. No other label is read. The list is asked for again when a pod it
 * does not hold is looked up, at most once per {@link #REFRESH_AT_MOST_EVERY}, so a node's new pods are found within
 * a round or two and a kubelet that is away is not asked every time; and once the list is {@link #LABELS_MAX_AGE}
 * old, so that a label changed on a running pod (its job, its team) is read within a minute or so. The first time
 * the sampling round waits for the list; after that it is asked for on a thread of its own ({@link Refreshes}) and
 * the pod is found in a later round, so a kubelet that is slow or away (up to 5 s a request) never holds a round up.
 *
 * <p>It also keeps the DRA ResourceClaims the pods use ({@link #claimsOfPods}): those a pod names
 * ({@code spec.resourceClaims[].resourceClaimName}), those made for it from a template
 * ({@code status.resourceClaimStatuses[].resourceClaimName}) and the one the scheduler made for the extended
 * resources (such as {@code nvidia.com/gpu}) that a DRA device class backs
 * ({@code status.extendedResourceClaimStatus.resourceClaimName}), each in the pod's namespace.
 */
public final class KubeletPods implements PodOwners, PodWorkloads {

    static final Duration REFRESH_AT_MOST_EVERY = Duration.ofSeconds(10);
    /** How long the pods' labels are taken as listed before the kubelet is asked again: they change seldom. */
    static final Duration LABELS_MAX_AGE = Duration.ofMinutes(1);
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The labels a ReplicaSet's pods carry its template's hash in: a Deployment's, an Argo Rollout's. */
    private static final List<String> TEMPLATE_HASH_LABELS = List.of("pod-template-hash",
            "rollouts-pod-template-hash");

    private final URI podsUrl;
    private final Optional<Path> tokenFile;
    private final List<String> jobLabels;
    private final List<String> teamLabels;
    private final PodJobs podJobs;
    /** How long the kubelet has to answer, its whole list included. */
    private static final Duration ANSWER_WITHIN = Duration.ofSeconds(5);

    private final HttpClient http;
    private final Refreshes refreshes;
    private final Clock clock;
    private final SaidOnce failures = new SaidOnce();
    private volatile Listing listing = new Listing(Map.of(), Map.of(), Instant.MIN);
    /** The claims of the pods last listed; null until the kubelet answered. */
    private volatile Set<PodClaim> podClaims;

    /** A ResourceClaim a pod of this node uses, by its namespace and name. */
    record PodClaim(String namespace, String name) {
    }

    /**
     * A pod's owner, its name, namespace and workload (empty: no controller made it), and whether its job is named
     * after it (no label names one).
     */
    private record Listed(Owner owner, String name, String namespace, Optional<String> workload,
            boolean namedAfterPod) {
    }

    /** The pods last listed, by UID (in lower case) and by {@code namespace/name}, and when. */
    private record Listing(Map<String, Listed> byUid, Map<String, Listed> byName, Instant listedAt) {
    }

    /**
     * @param kubeletUrl the kubelet, e.g. {@code http://127.0.0.1:10255} (its read-only port)
     * @param tokenFile  a bearer token to present, read again each time (a service account's, mounted)
     */
    public KubeletPods(URI kubeletUrl, Optional<Path> tokenFile, List<String> jobLabels, List<String> teamLabels,
            PodJobs podJobs, Clock clock) {
        this(kubeletUrl, tokenFile, Optional.empty(), jobLabels, teamLabels, podJobs, clock);
    }

    /**
     * @param caFile PEM certificates to trust for the kubelet's serving certificate (the cluster CA); the JVM's
     *               trust store without it
     * @throws IllegalArgumentException when the CA file cannot be read as certificates
     */
    public KubeletPods(URI kubeletUrl, Optional<Path> tokenFile, Optional<Path> caFile, List<String> jobLabels,
            List<String> teamLabels, PodJobs podJobs, Clock clock) {
        this(kubeletUrl, tokenFile, caFile, jobLabels, teamLabels, podJobs, clock,
                Refreshes.backgroundThread("kubelet-pods"));
    }

    /** As the public constructors, with the refreshes after the first run by {@code refresher}. */
    KubeletPods(URI kubeletUrl, Optional<Path> tokenFile, Optional<Path> caFile, List<String> jobLabels,
            List<String> teamLabels, PodJobs podJobs, Clock clock, Executor refresher) {
        String base = kubeletUrl.toString();
        this.podsUrl = URI.create(base.endsWith("/") ? base + "pods" : base + "/pods");
        this.tokenFile = tokenFile;
        this.jobLabels = List.copyOf(jobLabels);
        this.teamLabels = List.copyOf(teamLabels);
        this.podJobs = podJobs;
        this.refreshes = new Refreshes(REFRESH_AT_MOST_EVERY, clock, refresher, this::refresh);
        this.clock = clock;
        HttpClient.Builder client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3));
        caFile.ifPresent(file -> client.sslContext(TrustedCertificates.sslContext(file, "kubelet.ca-file")));
        this.http = client.build();
    }

    /**
     * The owner of the pod with this UID (in either case: a cgroup path gives it in lower case), noted as named:
     * empty when the kubelet does not list it (yet). Never waits for the kubelet but the first time.
     */
    public Optional<Owner> ownerOf(String podUid) {
        if (podUid == null) {
            return Optional.empty();
        }
        String uid = podUid.toLowerCase(Locale.ROOT);
        return owner(pods -> pods.byUid.get(uid));
    }

    /**
     * The owner of the pod {@code pod} in {@code namespace}, noted as named: empty when the kubelet does not list it
     * (yet). Never waits for the kubelet but the first time.
     */
    @Override
    public Optional<Owner> ownerOf(String namespace, String pod) {
        if (namespace == null || pod == null) {
            return Optional.empty();
        }
        return owner(pods -> pods.byName.get(namespace + "/" + pod));
    }

    /**
     * The workload of the pod {@code pod} in {@code namespace}, the controller that made it as its controlling owner
     * reference names it: a Deployment's (its ReplicaSet's name less the pod's {@code pod-template-hash}), a
     * StatefulSet's, a DaemonSet's, a Job's (each run of a CronJob its own), or any other controller's (an Argo
     * Workflow, a Kubeflow PyTorchJob). Empty for a pod no controller made (a bare pod, a static pod, whose mirror
     * names its node) and for one the kubelet does not list (yet). Never waits for the kubelet but the first time.
     */
    @Override
    public Optional<String> workloadOf(String namespace, String pod) {
        if (namespace == null || pod == null) {
            return Optional.empty();
        }
        Listed listed = find(pods -> pods.byName.get(namespace + "/" + pod));
        return listed == null ? Optional.empty() : listed.workload;
    }

    private Optional<Owner> owner(Function<Listing, Listed> find) {
        Listed pod = find(find);
        if (pod == null) {
            return Optional.empty();
        }
        if (pod.namedAfterPod) {
            podJobs.named(pod.namespace, pod.name, pod.workload);
        }
        return Optional.of(pod.owner);
    }

    /** The pod {@code find} finds, the list asked for again when it is not in it or the list is old. */
    private Listed find(Function<Listing, Listed> find) {
        Listed pod = find.apply(listing);
        if (pod == null || !listing.listedAt.isAfter(clock.instant().minus(LABELS_MAX_AGE))) {
            refreshes.askIfDue();
            pod = find.apply(listing);
        }
        return pod;
    }

    /**
     * The ResourceClaims the node's pods use, as the kubelet lists them: asked again on the calling thread if that is
     * due (the DRA claims' refresh, on a thread of its own after the first), so that a pod started since is found at
     * this refresh, not the next; empty until the kubelet answered once.
     */
    Optional<Set<PodClaim>> claimsOfPods() {
        refreshes.runIfDue();
        return Optional.ofNullable(podClaims);
    }

    synchronized List<String> drainErrors() {
        return failures.drain();
    }

    /** Tells no process's owner, and says what went wrong with the kubelet: where it is read only to name jobs. */
    public ProcessOwners errorsOnly() {
        return new ProcessOwners() {
            @Override
            public Optional<Owner> ownerOf(int pid) {
                return Optional.empty();
            }

            @Override
            public List<String> drainErrors() {
                return KubeletPods.this.drainErrors();
            }
        };
    }

    private void refresh() {
        try {
            HttpRequest.Builder request = HttpRequest.newBuilder(podsUrl).timeout(ANSWER_WITHIN).GET();
            if (tokenFile.isPresent()) {
                request.header("Authorization", "Bearer " + Files.readString(tokenFile.get(), StandardCharsets.UTF_8)
                        .strip());
            }
            BoundedGet.Answer response = BoundedGet.send(http, request.build(), ANSWER_WITHIN,
                    BoundedGet.AGENT_MAX_BYTES);
            if (response.statusCode() != 200) {
                failed("answered HTTP " + response.statusCode());
                return;
            }
            JsonNode podList = JSON.readTree(response.body());
            if (!"PodList".equals(podList.path("kind").asText())) {
                // A proxy's empty object is no list of no pods: the pods listed last stay.
                failed("answered what is not a list of pods (no \"kind\": \"PodList\")");
                return;
            }
            listing = owners(podList, clock.instant());
            podClaims = claims(podList);
            synchronized (this) {
                failures.answered();
            }
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            failed("answered what is not a list of pods (" + e.getOriginalMessage() + ")");
        } catch (IOException e) {
            failed("unreachable: " + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (RuntimeException e) {
            // An address the client cannot ask (an IPv6 address without its brackets), a token it cannot send.
            failed("cannot be asked: " + (e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage()));
        }
    }

    private synchronized void failed(String why) {
        String failure = "kubelet: " + podsUrl + " " + why + "; processes in pods stay unattributed"
                + (podJobs.ids().byWorkload() ? ", and pods not listed are named after themselves, not their workloads"
                        : "");
        failures.failed(failure);
    }

    private Listing owners(JsonNode podList, Instant listedAt) {
        Map<String, Listed> byUid = new HashMap<>();
        Map<String, Listed> byName = new HashMap<>();
        for (JsonNode pod : podList.path("items")) {
            JsonNode metadata = pod.path("metadata");
            String uid = metadata.path("uid").asText("");
            String name = metadata.path("name").asText("");
            if (uid.isEmpty() || name.isEmpty()) {
                continue;
            }
            JsonNode labels = metadata.path("labels");
            String namespace = metadata.path("namespace").asText(null);
            Optional<String> labelled = firstLabel(labels, jobLabels);
            Optional<String> workload = workload(metadata);
            String job = labelled.orElseGet(() -> podJobs.jobOf(namespace, name, workload));
            String team = firstLabel(labels, teamLabels).orElse(namespace);
            Listed listed = new Listed(new Owner(job, team), name, namespace, workload, labelled.isEmpty());
            // by the UID as a cgroup path gives it (CgroupIdentity): in lower case
            byUid.put(uid.toLowerCase(Locale.ROOT), listed);
            if (namespace != null && !namespace.isEmpty()) {
                byName.put(namespace + "/" + name, listed);
            }
        }
        return new Listing(Map.copyOf(byUid), Map.copyOf(byName), listedAt);
    }

    /** The name of the controller that made the pod ({@link #workloadOf}), from its metadata. */
    private static Optional<String> workload(JsonNode metadata) {
        for (JsonNode reference : metadata.path("ownerReferences")) {
            if (!reference.path("controller").asBoolean(false)) {
                continue;
            }
            String kind = reference.path("kind").asText("");
            String name = reference.path("name").asText("");
            if (name.isBlank() || "Node".equals(kind)) {
                return Optional.empty();
            }
            if ("ReplicaSet".equals(kind)) {
                // A Deployment's (or an Argo Rollout's) ReplicaSet is its name and the template's hash, new each
                // rollout: the Deployment is the workload.
                for (String hashLabel : TEMPLATE_HASH_LABELS) {
                    String hash = metadata.path("labels").path(hashLabel).asText("");
                    if (!hash.isEmpty() && name.length() > hash.length() + 1 && name.endsWith("-" + hash)) {
                        return Optional.of(name.substring(0, name.length() - hash.length() - 1));
                    }
                }
            }
            return Optional.of(name);
        }
        return Optional.empty();
    }

    private static Set<PodClaim> claims(JsonNode podList) {
        Set<PodClaim> claims = new LinkedHashSet<>();
        for (JsonNode pod : podList.path("items")) {
            String namespace = pod.path("metadata").path("namespace").asText("");
            List<JsonNode> named = new ArrayList<>();
            pod.path("spec").path("resourceClaims").forEach(named::add);
            pod.path("status").path("resourceClaimStatuses").forEach(named::add);
            // the one the scheduler made for the extended resources a DRA device class backs (nvidia.com/gpu)
            named.add(pod.path("status").path("extendedResourceClaimStatus"));
            for (JsonNode claim : named) {
                String name = claim.path("resourceClaimName").asText("");
                if (!namespace.isEmpty() && !name.isEmpty()) {
                    claims.add(new PodClaim(namespace, name));
                }
            }
        }
        return Collections.unmodifiableSet(claims);
    }

    private static Optional<String> firstLabel(JsonNode labels, List<String> allowed) {
        for (String name : allowed) {
            String value = labels.path(name).asText("");
            if (!value.isBlank()) {
                return Optional.of(value);
            }
        }
        return Optional.empty();
    }
}
