// Over 400 lines: an evidence record per recommendation kind and the parts they share: the contract in one place.
package io.gpuledger.model;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import java.time.Instant;
import java.util.List;

/**
 * The figures a rule decided a {@link Recommendation} on: one record per {@link RecommendationKind}
 * (its {@link RecommendationKind#evidenceType()}), whose fields are the keys of {@code evidence} on
 * the wire, in the order written there. Parts that several kinds share ({@link Period}, {@link Cap})
 * are written flat among the kind's own keys. A field marked {@code NON_NULL} is one a rule writes
 * only when it applies; every other field is written, null or not.
 */
public sealed interface RecommendationEvidence {

    /**
     * A value of a part written flat among a kind's keys: such a part is read back where its first key
     * is there, and then whole.
     */
    private static <T> T stated(T value) {
        if (value == null) {
            throw new InvalidRecordException("evidence", "states part of a group of figures, not all of it");
        }
        return value;
    }

    /** Evidence of a recommendation about a job, whose claim a cap to the job's bill can cut. */
    sealed interface Capped extends RecommendationEvidence {
        /** The cut made to the claim; null when it was not cut. */
        Cap cap();

        /** This evidence with {@code newCap} stated last. */
        Capped capped(Cap newCap);
    }

    /** Evidence of a job's figures added up over a period, which is stated first. */
    sealed interface OverPeriod extends Capped {
        /** The period the job's figures were added up over; null when not stated. */
        Period period();

        /** This evidence with {@code newPeriod} stated first. */
        OverPeriod over(Period newPeriod);
    }

    /**
     * The closed minutes a job's figures were added up over ({@code periodStart} to {@code periodEnd}),
     * and the look-back its running time was counted over.
     *
     * @param runningShare the share of the look-back the job ran
     */
    record Period(Instant periodStart, Instant periodEnd, long periodMinutes, Instant lookbackStart,
            Instant lookbackEnd, double runningShare) {

        /** Read flat among a kind's keys: none where the record states no period. */
        @JsonCreator
        static Period read(@JsonProperty("periodStart") Instant periodStart,
                @JsonProperty("periodEnd") Instant periodEnd, @JsonProperty("periodMinutes") Long periodMinutes,
                @JsonProperty("lookbackStart") Instant lookbackStart, @JsonProperty("lookbackEnd") Instant lookbackEnd,
                @JsonProperty("runningShare") Double runningShare) {
            return periodStart == null ? null : new Period(periodStart, periodEnd, stated(periodMinutes),
                    lookbackStart, lookbackEnd, stated(runningShare));
        }
    }

    /**
     * A claim cut to what the job's month can hold: the bill less what its other recommendations claim.
     *
     * @param uncappedMonthlySaving what the rule found before the cut
     */
    record Cap(double uncappedMonthlySaving, double jobBillPerMonth, double claimedByOtherRecommendations) {

        /** Read flat among a kind's keys: none where the record states no bill. */
        @JsonCreator
        static Cap read(@JsonProperty("uncappedMonthlySaving") Double uncappedMonthlySaving,
                @JsonProperty("jobBillPerMonth") Double jobBillPerMonth,
                @JsonProperty("claimedByOtherRecommendations") Double claimedByOtherRecommendations) {
            return jobBillPerMonth == null ? null : new Cap(stated(uncappedMonthlySaving), jobBillPerMonth,
                    stated(claimedByOtherRecommendations));
        }
    }

    /**
     * What was known of an instance going away when its evacuation was recommended.
     *
     * @param capacityEventKind the notice's {@link CapacityEventKind}, by its constant's name
     * @param placementStatus   the {@link PlacementStatus} of the instance's jobs, by its constant's name
     * @param expectedWorkAtRisk what a checkpoint before the deadline keeps of the jobs that checkpoint
     * @param costAtRiskPerHour what the listed GPUs cost together, in {@code currency}
     * @param gpusPerInstance   the GPUs lost: the catalog's for the type, else those known to run jobs
     */
    record Evacuate(
            String eventId,
            String capacityEventKind,
            @JsonInclude(JsonInclude.Include.NON_NULL) String cloudAction,
            Instant noticedAt,
            @JsonInclude(JsonInclude.Include.NON_NULL) Instant deadline,
            @JsonInclude(JsonInclude.Include.NON_NULL) Double secondsToDeadline,
            String placementStatus,
            List<JobCost> jobs,
            @JsonInclude(JsonInclude.Include.NON_NULL) Double expectedWorkAtRisk,
            @JsonInclude(JsonInclude.Include.NON_NULL) Instant placementUpdatedAt,
            double costAtRiskPerHour,
            @JsonInclude(JsonInclude.Include.NON_NULL) String currency,
            int unpricedGpus,
            int gpusListed,
            @JsonInclude(JsonInclude.Include.NON_NULL) String gpuModel,
            int gpusPerInstance,
            int replacementCandidates) implements RecommendationEvidence {

        public Evacuate {
            jobs = jobs == null ? List.of() : List.copyOf(jobs);
        }
    }

    /**
     * A job on an instance going away, and for one that checkpoints, what its work at risk costs.
     *
     * @param costPerHour    what its GPUs on the instance cost
     * @param jobCostPerHour what the whole job costs, where it checkpoints
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    record JobCost(String jobId, int gpus, boolean checkpoints, double costPerHour, Double checkpointIntervalSeconds,
            Double jobCostPerHour, Double expectedWorkAtRisk) {

        public static JobCost of(String jobId, int gpus, double costPerHour) {
            return new JobCost(jobId, gpus, false, costPerHour, null, null, null);
        }

        /** The job checkpointing every {@code intervalSeconds}, with {@code workAtRisk} of its whole cost. */
        public JobCost checkpointing(double intervalSeconds, double wholeJobCostPerHour, double workAtRisk) {
            return new JobCost(jobId, gpus, true, costPerHour, intervalSeconds, wholeJobCostPerHour, workAtRisk);
        }
    }

    /**
     * The idle period of the capacity to release, and what releasing it saves.
     *
     * @param quietMinutes       how long every GPU released had been quiet: {@code periodMinutes}, or more where the
     *                           target's capacity came back by itself after its last release; absent from records
     *                           written by v0.1.0
     * @param instancesToRelease how many instances the release names
     * @param waitingGpuEquivalents GPU equivalents kept, though quiet over the period, for not yet quiet {@code
     *                           quietMinutes}; absent from records written by v0.1.0
     * @param reserved           whether any of them is reserved (paid for its term either way)
     * @param lookbackStart      start of the look-back the idle share was counted over
     * @param jobId              the job holding the capacity, or the unknown job's name for an instance of none
     * @param cap                the cut to the claim of a job's release; null when not cut
     */
    record ReclaimIdle(
            Instant periodStart,
            Instant periodEnd,
            long periodMinutes,
            @JsonInclude(JsonInclude.Include.NON_NULL) Long quietMinutes,
            double smActive,
            double smActiveThreshold,
            double withdrawSmActive,
            double secondsObserved,
            double secondsWithActivity,
            int instancesHeld,
            int instancesNeeded,
            int instancesToRelease,
            double busyGpuEquivalents,
            @JsonInclude(JsonInclude.Include.NON_NULL) Double waitingGpuEquivalents,
            int gpusPerInstance,
            boolean reportedWork,
            double idleCostPerHour,
            boolean reserved,
            Instant lookbackStart,
            Instant lookbackEnd,
            double idleShare,
            double hoursPerMonth,
            String jobId,
            String currency,
            @JsonUnwrapped Cap cap) implements Capped {

        @Override
        public ReclaimIdle capped(Cap newCap) {
            return new ReclaimIdle(periodStart, periodEnd, periodMinutes, quietMinutes, smActive, smActiveThreshold,
                    withdrawSmActive, secondsObserved, secondsWithActivity, instancesHeld, instancesNeeded,
                    instancesToRelease, busyGpuEquivalents, waitingGpuEquivalents, gpusPerInstance, reportedWork,
                    idleCostPerHour, reserved, lookbackStart, lookbackEnd, idleShare, hoursPerMonth, jobId, currency,
                    newCap);
        }
    }

    /**
     * A job's cost per unit of work now and on the candidate, how the candidate's was found
     * ({@code basis}: {@code observed} on a peer, with {@code observed}, or {@code estimated}, with
     * {@code estimate} and for a serving job {@code sizing}), and what a move across regions sends.
     */
    record SwitchInstanceType(
            @JsonUnwrapped Period period,
            String basis,
            String unit,
            @JsonInclude(JsonInclude.Include.NON_NULL) String workload,
            boolean serving,
            double workUnitsPerHour,
            double hoursPerMonth,
            double currentCostPerHour,
            double currentCostPerMillionUnits,
            double candidateCostPerMillionUnits,
            int candidateInstances,
            double savingRatio,
            double minSavingRatio,
            double withdrawSavingRatio,
            @JsonInclude(JsonInclude.Include.NON_NULL) Double communicationOverheadRatio,
            double smActive,
            @JsonInclude(JsonInclude.Include.NON_NULL) Double dramActive,
            int candidatesWorthIt,
            String currency,
            @JsonUnwrapped Candidate candidate,
            @JsonUnwrapped Cap cap) implements OverPeriod {

        @Override
        public SwitchInstanceType over(Period newPeriod) {
            return new SwitchInstanceType(newPeriod, basis, unit, workload, serving, workUnitsPerHour, hoursPerMonth,
                    currentCostPerHour, currentCostPerMillionUnits, candidateCostPerMillionUnits, candidateInstances,
                    savingRatio, minSavingRatio, withdrawSavingRatio, communicationOverheadRatio, smActive, dramActive,
                    candidatesWorthIt, currency, candidate, cap);
        }

        @Override
        public SwitchInstanceType capped(Cap newCap) {
            return new SwitchInstanceType(period, basis, unit, workload, serving, workUnitsPerHour, hoursPerMonth,
                    currentCostPerHour, currentCostPerMillionUnits, candidateCostPerMillionUnits, candidateInstances,
                    savingRatio, minSavingRatio, withdrawSavingRatio, communicationOverheadRatio, smActive, dramActive,
                    candidatesWorthIt, currency, candidate, newCap);
        }

        /**
         * How the candidate was found, in the order its figures are written: a peer's cost observed, or
         * an estimate (with its sizing for a serving job), and the egress of a move across regions.
         */
        public record Candidate(@JsonUnwrapped Observed observed, @JsonUnwrapped Estimate estimate,
                @JsonUnwrapped Egress egress, @JsonUnwrapped Sizing sizing) {

            public Candidate {
                Check.present("candidate", observed != null ? observed : estimate);
            }
        }

        /** The peer whose cost per unit the candidate is: the cheapest running the same work. */
        public record Observed(String comparedJobId,
                @JsonInclude(JsonInclude.Include.NON_NULL) String comparedWorkload, Instant comparedWindowEnd,
                double comparedCostPerMillionUnits) {

            @JsonCreator
            static Observed read(@JsonProperty("comparedJobId") String comparedJobId,
                    @JsonProperty("comparedWorkload") String comparedWorkload,
                    @JsonProperty("comparedWindowEnd") Instant comparedWindowEnd,
                    @JsonProperty("comparedCostPerMillionUnits") Double comparedCostPerMillionUnits) {
                return comparedJobId == null ? null : new Observed(comparedJobId, comparedWorkload,
                        comparedWindowEnd, stated(comparedCostPerMillionUnits));
            }
        }

        /**
         * How much faster the candidate runs the job, and what it costs.
         *
         * @param workloadClassFrom     what said the class: the job's traits, its telemetry or the default
         * @param measuredCandidateJobs jobs measured on the candidate's GPU, where the ratio is the fleet's
         */
        public record Estimate(
                String workloadClass,
                String workloadClassFrom,
                String performanceSource,
                double performanceRatio,
                @JsonInclude(JsonInclude.Include.NON_NULL) Integer measuredCandidateJobs,
                @JsonInclude(JsonInclude.Include.NON_NULL) Integer measuredCurrentJobs,
                boolean communicationBound,
                double networkRatio,
                double estimatedSpeedup,
                double candidatePricePerHour,
                double candidatePricePerGpuHour,
                String quoteCurrency,
                double exchangeRate) {

            @JsonCreator
            static Estimate read(@JsonProperty("workloadClass") String workloadClass,
                    @JsonProperty("workloadClassFrom") String workloadClassFrom,
                    @JsonProperty("performanceSource") String performanceSource,
                    @JsonProperty("performanceRatio") Double performanceRatio,
                    @JsonProperty("measuredCandidateJobs") Integer measuredCandidateJobs,
                    @JsonProperty("measuredCurrentJobs") Integer measuredCurrentJobs,
                    @JsonProperty("communicationBound") Boolean communicationBound,
                    @JsonProperty("networkRatio") Double networkRatio,
                    @JsonProperty("estimatedSpeedup") Double estimatedSpeedup,
                    @JsonProperty("candidatePricePerHour") Double candidatePricePerHour,
                    @JsonProperty("candidatePricePerGpuHour") Double candidatePricePerGpuHour,
                    @JsonProperty("quoteCurrency") String quoteCurrency,
                    @JsonProperty("exchangeRate") Double exchangeRate) {
                return workloadClass == null ? null : new Estimate(workloadClass, workloadClassFrom,
                        performanceSource, stated(performanceRatio), measuredCandidateJobs, measuredCurrentJobs,
                        stated(communicationBound), stated(networkRatio), stated(estimatedSpeedup),
                        stated(candidatePricePerHour), stated(candidatePricePerGpuHour), quoteCurrency,
                        stated(exchangeRate));
            }
        }

        /**
         * What a move to another region or provider sends a month; the cost is null where the job
         * does not say its storage traffic ({@code egressKnown} false).
         */
        public record Egress(String move, String fromRegion, String toRegion,
                @JsonInclude(JsonInclude.Include.NON_NULL) Double egressGbPerMonth, Double egressCostPerMonth,
                boolean egressKnown) {

            public static Egress unknown(String move, String fromRegion, String toRegion) {
                return new Egress(move, fromRegion, toRegion, null, null, false);
            }

            @JsonCreator
            static Egress read(@JsonProperty("move") String move, @JsonProperty("fromRegion") String fromRegion,
                    @JsonProperty("toRegion") String toRegion,
                    @JsonProperty("egressGbPerMonth") Double egressGbPerMonth,
                    @JsonProperty("egressCostPerMonth") Double egressCostPerMonth,
                    @JsonProperty("egressKnown") Boolean egressKnown) {
                return move == null ? null : new Egress(move, fromRegion, toRegion, egressGbPerMonth,
                        egressCostPerMonth, stated(egressKnown));
            }
        }

        /** A serving job sized on the candidate to carry its peak with {@code headroom} to spare. */
        public record Sizing(double peakUnitsPerHour, double peakUnitsPerGpuHour, double headroom,
                String headroomFrom, double candidateCapacityPerGpuHour, double candidateCostPerHour) {

            @JsonCreator
            static Sizing read(@JsonProperty("peakUnitsPerHour") Double peakUnitsPerHour,
                    @JsonProperty("peakUnitsPerGpuHour") Double peakUnitsPerGpuHour,
                    @JsonProperty("headroom") Double headroom, @JsonProperty("headroomFrom") String headroomFrom,
                    @JsonProperty("candidateCapacityPerGpuHour") Double candidateCapacityPerGpuHour,
                    @JsonProperty("candidateCostPerHour") Double candidateCostPerHour) {
                return headroomFrom == null ? null : new Sizing(stated(peakUnitsPerHour),
                        stated(peakUnitsPerGpuHour), stated(headroom), headroomFrom,
                        stated(candidateCapacityPerGpuHour), stated(candidateCostPerHour));
            }
        }
    }

    /**
     * A pool's use and prices over its look-back. A record of reservations bought on its advice
     * ({@code reservedOnAdvice} set) carries the commitment it was bought with; a new one also says
     * how much of the term its history covers.
     */
    record ReserveCapacity(
            int lookbackHours,
            int idleHours,
            double onDemandPricePerHour,
            double reservedPricePerHour,
            String currency,
            String quoteCurrency,
            double exchangeRate,
            double discount,
            double breakEvenUtilization,
            double baselinePercentile,
            int baselineInstances,
            int reservedInUse,
            List<Double> utilizationByInstance,
            int peakInstances,
            @JsonInclude(JsonInclude.Include.NON_NULL) Integer reservedOnAdvice,
            @JsonInclude(JsonInclude.Include.NON_NULL) Integer moreWorthReserving,
            @JsonUnwrapped Commitment commitment,
            @JsonInclude(JsonInclude.Include.NON_NULL) Double historyShareOfTerm,
            @JsonInclude(JsonInclude.Include.NON_NULL) Long historyShortfallHours) implements RecommendationEvidence {

        public ReserveCapacity {
            utilizationByInstance = utilizationByInstance == null ? List.of() : List.copyOf(utilizationByInstance);
        }

        /** This evidence for reservations bought: {@code bought} and {@code more} to say, and {@code kept}. */
        public ReserveCapacity bought(int bought, int more, Commitment kept) {
            return new ReserveCapacity(lookbackHours, idleHours, onDemandPricePerHour, reservedPricePerHour, currency,
                    quoteCurrency, exchangeRate, discount, breakEvenUtilization, baselinePercentile,
                    baselineInstances, reservedInUse, utilizationByInstance, peakInstances, bought, more, kept, null,
                    null);
        }

        /** This evidence for a new reservation of {@code terms}, on {@code historyHours} of history. */
        public ReserveCapacity committing(Commitment terms) {
            long historyHours = terms.historyHours();
            return new ReserveCapacity(lookbackHours, idleHours, onDemandPricePerHour, reservedPricePerHour, currency,
                    quoteCurrency, exchangeRate, discount, breakEvenUtilization, baselinePercentile,
                    baselineInstances, reservedInUse, utilizationByInstance, peakInstances, null, null, terms,
                    Math.min(1, (double) historyHours / terms.termHours()),
                    Math.max(0, terms.termHours() - historyHours));
        }

        /**
         * The reservation recommended, as it is carried on once bought.
         *
         * @param termSource    {@code price} where the reserved price states the term, else {@code default}
         * @param paymentOption the price's, or {@code not stated}
         */
        public record Commitment(int instancesToReserve, int termMonths, String termSource, long termHours,
                String paymentOption, double totalCommitment, long historyHours) {

            @JsonCreator
            static Commitment read(@JsonProperty("instancesToReserve") Integer instancesToReserve,
                    @JsonProperty("termMonths") Integer termMonths, @JsonProperty("termSource") String termSource,
                    @JsonProperty("termHours") Long termHours, @JsonProperty("paymentOption") String paymentOption,
                    @JsonProperty("totalCommitment") Double totalCommitment,
                    @JsonProperty("historyHours") Long historyHours) {
                return instancesToReserve == null ? null : new Commitment(instancesToReserve,
                        stated(termMonths), termSource, stated(termHours), paymentOption,
                        stated(totalCommitment), stated(historyHours));
            }
        }
    }

    /**
     * Spot and on-demand prices of the job's pool, what interruptions cost it, and for a job that
     * should first checkpoint more often, the interval and the spot pool it would then move to.
     *
     * @param instances                 the job's instances on demand (a share of one counts as such)
     * @param interruptionFrequency     the catalog's monthly band, where the rate is the catalog's
     * @param checkpointIntervalSeconds how often the job says it checkpoints
     */
    record MoveToSpot(
            @JsonUnwrapped Period period,
            double onDemandPricePerHour,
            double spotPricePerHour,
            String quoteCurrency,
            double exchangeRate,
            double instances,
            int spotInstances,
            double grossHourlySaving,
            double hourlySaving,
            double hoursPerMonth,
            String interruptionRateSource,
            @JsonInclude(JsonInclude.Include.NON_NULL) Double interruptionFrequency,
            @JsonInclude(JsonInclude.Include.NON_NULL) Double interruptionFrequencyLow,
            double interruptionsPerInstanceHour,
            double interruptionsPerInstanceHourLow,
            double jobInterruptionsPerHour,
            Double checkpointIntervalSeconds,
            double restartSeconds,
            double usefulFraction,
            double usefulFractionAtBandLow,
            double monthlySavingAtBandHigh,
            double monthlySavingAtBandLow,
            double delayHoursPerMonth,
            double netSavingRatio,
            double minNetSavingRatio,
            double withdrawNetSavingRatio,
            String currency,
            @JsonInclude(JsonInclude.Include.NON_NULL) Double suggestedCheckpointIntervalSeconds,
            @JsonInclude(JsonInclude.Include.NON_NULL) RecommendationAction.PricedOffer spotPool,
            @JsonUnwrapped Cap cap) implements OverPeriod {

        @Override
        public MoveToSpot over(Period newPeriod) {
            return new MoveToSpot(newPeriod, onDemandPricePerHour, spotPricePerHour, quoteCurrency, exchangeRate,
                    instances, spotInstances, grossHourlySaving, hourlySaving, hoursPerMonth, interruptionRateSource,
                    interruptionFrequency, interruptionFrequencyLow, interruptionsPerInstanceHour,
                    interruptionsPerInstanceHourLow, jobInterruptionsPerHour, checkpointIntervalSeconds,
                    restartSeconds, usefulFraction, usefulFractionAtBandLow, monthlySavingAtBandHigh,
                    monthlySavingAtBandLow, delayHoursPerMonth, netSavingRatio, minNetSavingRatio,
                    withdrawNetSavingRatio, currency, suggestedCheckpointIntervalSeconds, spotPool, cap);
        }

        @Override
        public MoveToSpot capped(Cap newCap) {
            return new MoveToSpot(period, onDemandPricePerHour, spotPricePerHour, quoteCurrency, exchangeRate,
                    instances, spotInstances, grossHourlySaving, hourlySaving, hoursPerMonth, interruptionRateSource,
                    interruptionFrequency, interruptionFrequencyLow, interruptionsPerInstanceHour,
                    interruptionsPerInstanceHourLow, jobInterruptionsPerHour, checkpointIntervalSeconds,
                    restartSeconds, usefulFraction, usefulFractionAtBandLow, monthlySavingAtBandHigh,
                    monthlySavingAtBandLow, delayHoursPerMonth, netSavingRatio, minNetSavingRatio,
                    withdrawNetSavingRatio, currency, suggestedCheckpointIntervalSeconds, spotPool, newCap);
        }
    }

    /**
     * What a job's communication costs, and ({@code basis} {@code network-bandwidth}) the faster
     * interconnect that cuts it, or ({@code none}) no such offer.
     *
     * @param networkGbps the job's network now, where the catalog knows it
     */
    record ReduceCommunication(
            @JsonUnwrapped Period period,
            double communicationOverheadRatio,
            double threshold,
            double withdrawRatio,
            double costPerHour,
            double communicationCostPerHour,
            double exposedCommunicationHoursPerMonth,
            double communicationCostPerMonth,
            double hoursPerMonth,
            String currency,
            @JsonInclude(JsonInclude.Include.NON_NULL) Double networkGbps,
            String basis,
            @JsonUnwrapped Interconnect interconnect,
            @JsonUnwrapped Cap cap) implements OverPeriod {

        public static final String BASIS_NETWORK = "network-bandwidth";
        public static final String BASIS_NONE = "none";

        @Override
        public ReduceCommunication over(Period newPeriod) {
            return new ReduceCommunication(newPeriod, communicationOverheadRatio, threshold, withdrawRatio,
                    costPerHour, communicationCostPerHour, exposedCommunicationHoursPerMonth,
                    communicationCostPerMonth, hoursPerMonth, currency, networkGbps, basis, interconnect, cap);
        }

        @Override
        public ReduceCommunication capped(Cap newCap) {
            return new ReduceCommunication(period, communicationOverheadRatio, threshold, withdrawRatio,
                    costPerHour, communicationCostPerHour, exposedCommunicationHoursPerMonth,
                    communicationCostPerMonth, hoursPerMonth, currency, networkGbps, basis, interconnect, newCap);
        }

        /** The faster interconnect, and what the job's work would cost on it. */
        public record Interconnect(double candidateNetworkGbps, double networkRatio, double estimatedRatioAfter,
                double candidateCostPerHour, double candidateCostOfTheSameWorkPerHour, String quoteCurrency,
                double exchangeRate) {

            @JsonCreator
            static Interconnect read(@JsonProperty("candidateNetworkGbps") Double candidateNetworkGbps,
                    @JsonProperty("networkRatio") Double networkRatio,
                    @JsonProperty("estimatedRatioAfter") Double estimatedRatioAfter,
                    @JsonProperty("candidateCostPerHour") Double candidateCostPerHour,
                    @JsonProperty("candidateCostOfTheSameWorkPerHour") Double candidateCostOfTheSameWorkPerHour,
                    @JsonProperty("quoteCurrency") String quoteCurrency,
                    @JsonProperty("exchangeRate") Double exchangeRate) {
                return candidateNetworkGbps == null ? null : new Interconnect(candidateNetworkGbps,
                        stated(networkRatio), stated(estimatedRatioAfter),
                        stated(candidateCostPerHour), stated(candidateCostOfTheSameWorkPerHour),
                        quoteCurrency, stated(exchangeRate));
            }
        }
    }
}
