package io.gpuledger.model;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import java.time.Instant;
import java.util.List;

/**
 * What a {@link Recommendation} asks automation to do: one record per {@link RecommendationKind}
 * (its {@link RecommendationKind#actionType()}), whose fields are the keys of {@code action} on the
 * wire, in the order written there. A field that does not apply to one record of a kind is null
 * and left out of the JSON.
 */
public sealed interface RecommendationAction {

    /** An action that can move a job to another pool: a move when {@link #toPool()} is set. */
    sealed interface Move extends RecommendationAction {
        String jobId();

        /** The offer key of the pool the job runs in now. */
        String fromPool();

        /** Where to move it; null when the action is not a move. */
        PricedOffer toPool();

        /** How many instances of {@link #toPool()} to run it on; null when the action is not a move. */
        Integer toInstances();

        default boolean movesTheJob() {
            return toPool() != null;
        }
    }

    /**
     * An offer as actions name it, so that automation reads one shape: its key, its parts, the GPU
     * model (when known) and, when the offer has a price, its GPUs per instance and price.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @JsonPropertyOrder({"offerKey"})
    record PricedOffer(@JsonUnwrapped Offer offer, String gpuModel, Integer gpusPerInstance, Double pricePerHour,
            String currency) {

        public PricedOffer {
            Check.present("offer", offer);
        }

        public static PricedOffer of(PriceQuote quote, String gpuModel) {
            return new PricedOffer(quote.offer(), gpuModel, quote.gpuCount(), quote.pricePerHour(), quote.currency());
        }

        /** An offer whose price is not known. */
        public static PricedOffer unpriced(Offer offer, String gpuModel) {
            return new PricedOffer(offer, gpuModel, null, null, null);
        }

        @JsonProperty("offerKey")
        public String offerKey() {
            return offer.key();
        }

        public String instanceType() {
            return offer.instanceType();
        }

        public Lifecycle lifecycle() {
            return offer.lifecycle();
        }
    }

    /**
     * Move the jobs off an instance that is going away.
     *
     * @param jobsKnown       whether {@code jobs} is the instance's current placement
     * @param replacementPool the cheapest priced on-demand offer to move to; null when none is known
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record Evacuate(String instanceId, Instant deadline, boolean jobsKnown, List<JobToMove> jobs,
            PricedOffer replacementPool) implements RecommendationAction {

        public Evacuate {
            jobs = jobs == null ? List.of() : List.copyOf(jobs);
        }
    }

    /** A job on an instance going away; {@code checkpoints} when it checkpoints and is worth checkpointing now. */
    record JobToMove(String jobId, int gpus, boolean checkpoints) {
    }

    /**
     * Release idle capacity: one instance no one job holds ({@code release} is {@code instance}), or the
     * instances a job holds beyond what it keeps busy ({@code instances}, with the job's fields).
     *
     * @param jobIds with {@code instance}: the jobs that ran on it (several sharing its GPUs, or one on each), none
     *               of which reported work; absent when it runs no job
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record ReclaimIdle(String release, String jobId, List<String> instanceIds, Integer keepInstances,
            String instanceId, List<String> gpuUuids, List<String> jobIds) implements RecommendationAction {

        public static final String INSTANCE = "instance";
        public static final String INSTANCES = "instances";

        public static ReclaimIdle instance(String instanceId, List<String> gpuUuids) {
            return instance(instanceId, gpuUuids, List.of());
        }

        /** Release instance {@code instanceId}, on which the idle jobs {@code jobIds} ran (none: no job). */
        public static ReclaimIdle instance(String instanceId, List<String> gpuUuids, List<String> jobIds) {
            return new ReclaimIdle(INSTANCE, null, null, null, instanceId, gpuUuids,
                    jobIds.isEmpty() ? null : List.copyOf(jobIds));
        }

        /** Shrink job {@code jobId} to {@code keepInstances} instances, releasing {@code instanceIds}. */
        public static ReclaimIdle ofJob(String jobId, List<String> instanceIds, int keepInstances,
                List<String> gpuUuids) {
            return new ReclaimIdle(INSTANCES, jobId, instanceIds, keepInstances, instanceIds.get(0), gpuUuids, null);
        }

        public boolean shrinksAJob() {
            return INSTANCES.equals(release);
        }
    }

    /** Run job {@code jobId} on {@code toInstances} of another instance type, {@code toGpus} GPUs in all. */
    record SwitchInstanceType(String jobId, int gpus, String fromPool, PricedOffer toPool, Integer toInstances,
            int toGpus) implements Move {
    }

    /** Reserve {@code reserveInstances} of the target pool for {@code termMonths}; {@code paymentOption} if stated. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record ReserveCapacity(int reserveInstances, int reservedAfter, int termMonths, String paymentOption,
            double totalCommitment, PricedOffer reservation) implements RecommendationAction {
    }

    /**
     * Move an interruptible job to spot ({@code step} {@link #STEP_MOVE}, with {@code toPool} and
     * {@code toInstances}), or first checkpoint it more often ({@link #STEP_CHECKPOINT}, with
     * {@code checkpointIntervalSeconds}), a change a person makes to the job.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record MoveToSpot(String jobId, int gpus, String fromPool, String step, PricedOffer toPool, Integer toInstances,
            Double checkpointIntervalSeconds) implements Move {

        public static final String STEP_MOVE = "move";
        public static final String STEP_CHECKPOINT = "checkpoint-more-often";

        public static MoveToSpot move(String jobId, int gpus, String fromPool, PricedOffer toPool, int toInstances) {
            return new MoveToSpot(jobId, gpus, fromPool, STEP_MOVE, toPool, toInstances, null);
        }

        public static MoveToSpot checkpointEvery(String jobId, int gpus, String fromPool, double seconds) {
            return new MoveToSpot(jobId, gpus, fromPool, STEP_CHECKPOINT, null, null, seconds);
        }
    }

    /**
     * Cut a job's time spent communicating: by a faster interconnect ({@code fix}
     * {@link #FIX_INTERCONNECT}, with the pool to move to) or by changes to the job alone
     * ({@link #FIX_JOB_CHANGES}); {@code jobChanges} lists those changes either way.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record ReduceCommunication(String jobId, String fix, String fromPool, PricedOffer toPool, Integer toInstances,
            List<String> jobChanges) implements Move {

        public static final String FIX_INTERCONNECT = "faster-interconnect";
        public static final String FIX_JOB_CHANGES = "job-changes";

        public static ReduceCommunication interconnect(String jobId, String fromPool, PricedOffer toPool,
                int toInstances, List<String> jobChanges) {
            return new ReduceCommunication(jobId, FIX_INTERCONNECT, fromPool, toPool, toInstances, jobChanges);
        }

        public static ReduceCommunication jobChanges(String jobId, List<String> jobChanges) {
            return new ReduceCommunication(jobId, FIX_JOB_CHANGES, null, null, null, jobChanges);
        }
    }
}
