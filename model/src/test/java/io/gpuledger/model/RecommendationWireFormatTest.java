package io.gpuledger.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Recommendations as release v0.1.0 wrote them, when {@code action} and {@code evidence} were maps
 * built by hand in each rule: every kind still reads into its typed action and evidence, and is
 * written back byte for byte, keys in the same order. The documents below are that wire format; do
 * not edit them to follow a change of the code (a change that breaks them breaks the automation
 * reading the topic).
 */
class RecommendationWireFormatTest {

    @Test
    void shouldReadAnEvacuationAsV010WroteIt() {
        RecommendationAction.Evacuate action = (RecommendationAction.Evacuate) read(EVACUATE).action();

        assertThat(action.instanceId()).isEqualTo("i-0a1b2c3d4e5f60718");
        assertThat(action.deadline()).isEqualTo(Instant.parse("2026-03-02T14:09:30Z"));
        assertThat(action.jobsKnown()).isTrue();
        assertThat(action.jobs()).containsExactly(new RecommendationAction.JobToMove("train-llama-7b", 6, true),
                new RecommendationAction.JobToMove("eval-llama-7b", 2, false));
        assertThat(action.replacementPool()).isEqualTo(new RecommendationAction.PricedOffer(
                Offer.fromKey("aws|us-east-1|p4d.24xlarge|on-demand"), "A100-40GB", 8, 32.77, "USD"));
    }

    @Test
    void shouldReadAReleaseOfIdleInstancesAsV010WroteIt() {
        Recommendation recommendation = read(RECLAIM_IDLE);
        RecommendationAction.ReclaimIdle action = (RecommendationAction.ReclaimIdle) recommendation.action();

        assertThat(action.shrinksAJob()).isTrue();
        assertThat(action.jobId()).isEqualTo("eval-wide");
        assertThat(action.instanceIds()).containsExactly("i-eval-wide-0-1");
        assertThat(action.keepInstances()).isEqualTo(1);
        assertThat(action.instanceId()).isEqualTo("i-eval-wide-0-1");
        assertThat(action.gpuUuids()).hasSize(8).startsWith("GPU-eval-wide-0-1-0");
        assertThat(recommendation.target()).isEqualTo(Recommendation.Target.job("eval-wide"));
    }

    @Test
    void shouldReadASwitchOfInstanceTypeAsV010WroteIt() {
        RecommendationAction.SwitchInstanceType action =
                (RecommendationAction.SwitchInstanceType) read(SWITCH_INSTANCE_TYPE).action();

        assertThat(action.jobId()).isEqualTo("resnet-serve");
        assertThat(action.gpus()).isEqualTo(4);
        assertThat(action.fromPool()).isEqualTo("aws|us-east-1|p3.2xlarge|on-demand");
        assertThat(action.toPool().offerKey()).isEqualTo("aws|us-east-1|g4dn.xlarge|on-demand");
        assertThat(action.toPool().gpuModel()).isEqualTo("T4-16GB");
        assertThat(action.toPool().pricePerHour()).isEqualTo(0.526);
        assertThat(action.toInstances()).isEqualTo(3);
        assertThat(action.toGpus()).isEqualTo(3);
        assertThat(action.movesTheJob()).isTrue();
    }

    @Test
    void shouldReadAReservationAsV010WroteIt() {
        Recommendation recommendation = read(RESERVE_CAPACITY);
        RecommendationAction.ReserveCapacity action = (RecommendationAction.ReserveCapacity) recommendation.action();

        assertThat(action.reserveInstances()).isEqualTo(3);
        assertThat(action.reservedAfter()).isEqualTo(3);
        assertThat(action.termMonths()).isEqualTo(12);
        assertThat(action.paymentOption()).isEqualTo("no-upfront");
        assertThat(action.totalCommitment()).isEqualTo(559777.14);
        assertThat(action.reservation().lifecycle()).isEqualTo(Lifecycle.RESERVED);
        assertThat(action.reservation().gpusPerInstance()).isEqualTo(8);
        assertThat(recommendation.target().offer()).contains(Offer.fromKey("aws|us-east-1|p4d.24xlarge|on-demand"));
    }

    @Test
    void shouldReadAMoveToSpotAsV010WroteIt() {
        RecommendationAction.MoveToSpot action = (RecommendationAction.MoveToSpot) read(MOVE_TO_SPOT).action();

        assertThat(action.jobId()).isEqualTo("gpt-small-sync");
        assertThat(action.gpus()).isEqualTo(32);
        assertThat(action.fromPool()).isEqualTo("aws|us-east-1|p4d.24xlarge|on-demand");
        assertThat(action.step()).isEqualTo(RecommendationAction.MoveToSpot.STEP_MOVE);
        assertThat(action.toPool().offerKey()).isEqualTo("aws|us-east-1|p4d.24xlarge|spot");
        assertThat(action.toInstances()).isEqualTo(4);
        assertThat(action.checkpointIntervalSeconds()).isNull();
    }

    @Test
    void shouldReadAFixOfCommunicationAsV010WroteIt() {
        RecommendationAction.ReduceCommunication action =
                (RecommendationAction.ReduceCommunication) read(REDUCE_COMMUNICATION).action();

        assertThat(action.jobId()).isEqualTo("dist-nc");
        assertThat(action.fix()).isEqualTo(RecommendationAction.ReduceCommunication.FIX_INTERCONNECT);
        assertThat(action.fromPool()).isEqualTo("azure|eastus|Standard_NC96ads_A100_v4|on-demand");
        assertThat(action.toPool().instanceType()).isEqualTo("Standard_ND96amsr_A100_v4");
        assertThat(action.toInstances()).isEqualTo(2);
        assertThat(action.jobChanges()).containsExactly("overlap-communication-with-compute",
                "gradient-accumulation", "gradient-compression");
    }

    @Test
    void shouldReadTheEvidenceOfAnEvacuationAsV010WroteIt() {
        var evidence = (RecommendationEvidence.Evacuate) read(EVACUATE).evidence();

        assertThat(evidence.capacityEventKind()).isEqualTo("SPOT_INTERRUPTION");
        assertThat(evidence.deadline()).isEqualTo(Instant.parse("2026-03-02T14:09:30Z"));
        assertThat(evidence.jobs()).containsExactly(
                new RecommendationEvidence.JobCost("train-llama-7b", 6, true, 7.3732500000000005, 1800.0,
                        29.493000000000002, 7.3732500000000005),
                RecommendationEvidence.JobCost.of("eval-llama-7b", 2, 2.45775));
        assertThat(evidence.expectedWorkAtRisk()).isEqualTo(7.3732500000000005);
        assertThat(evidence.gpusPerInstance()).isEqualTo(8);
    }

    @Test
    void shouldReadTheEvidenceOfAReleaseAsV010WroteIt() {
        var evidence = (RecommendationEvidence.ReclaimIdle) read(RECLAIM_IDLE).evidence();

        assertThat(evidence.periodMinutes()).isEqualTo(30);
        assertThat(evidence.instancesToRelease()).isEqualTo(1);
        assertThat(evidence.idleCostPerHour()).isEqualTo(32.76999999999998);
        assertThat(evidence.jobId()).isEqualTo("eval-wide");
        assertThat(evidence.cap()).isNull();
    }

    @Test
    void shouldReadTheEvidenceOfASwitchAsV010WroteIt() {
        var evidence = (RecommendationEvidence.SwitchInstanceType) read(SWITCH_INSTANCE_TYPE).evidence();

        assertThat(evidence.period()).isEqualTo(new RecommendationEvidence.Period(
                Instant.parse("2026-03-02T23:00:00Z"), Instant.parse("2026-03-03T00:00:00Z"), 60,
                Instant.parse("2026-03-02T00:00:00Z"), Instant.parse("2026-03-03T00:00:00Z"), 1.0));
        assertThat(evidence.basis()).isEqualTo("estimated");
        assertThat(evidence.candidate().observed()).isNull();
        assertThat(evidence.candidate().estimate().performanceSource()).isEqualTo("table:inference");
        assertThat(evidence.candidate().estimate().measuredCandidateJobs()).isNull();
        assertThat(evidence.candidate().egress()).isNull();
        assertThat(evidence.candidate().sizing().headroomFrom()).isEqualTo("default");
        assertThat(evidence.candidate().sizing().candidateCostPerHour()).isEqualTo(1.578);
        assertThat(evidence.cap()).isNull();
    }

    @Test
    void shouldReadTheEvidenceOfAReservationAsV010WroteIt() {
        var evidence = (RecommendationEvidence.ReserveCapacity) read(RESERVE_CAPACITY).evidence();

        assertThat(evidence.utilizationByInstance()).hasSize(7).startsWith(1.0);
        assertThat(evidence.reservedOnAdvice()).isNull();
        assertThat(evidence.commitment()).isEqualTo(new RecommendationEvidence.ReserveCapacity.Commitment(3, 12,
                "price", 8760, "no-upfront", 559777.14, 168));
        assertThat(evidence.historyShortfallHours()).isEqualTo(8592);
    }

    @Test
    void shouldReadTheEvidenceOfAMoveToSpotAsV010WroteIt() {
        var evidence = (RecommendationEvidence.MoveToSpot) read(MOVE_TO_SPOT).evidence();

        assertThat(evidence.period().periodMinutes()).isEqualTo(60);
        assertThat(evidence.instances()).isEqualTo(4.0);
        assertThat(evidence.interruptionFrequency()).isEqualTo(0.05);
        assertThat(evidence.checkpointIntervalSeconds()).isEqualTo(3600.0);
        assertThat(evidence.suggestedCheckpointIntervalSeconds()).isNull();
        assertThat(evidence.spotPool()).isNull();
    }

    @Test
    void shouldReadTheEvidenceOfAFixOfCommunicationAsV010WroteIt() {
        var evidence = (RecommendationEvidence.ReduceCommunication) read(REDUCE_COMMUNICATION).evidence();

        assertThat(evidence.period().periodMinutes()).isEqualTo(30);
        assertThat(evidence.networkGbps()).isEqualTo(80.0);
        assertThat(evidence.basis()).isEqualTo(RecommendationEvidence.ReduceCommunication.BASIS_NETWORK);
        assertThat(evidence.interconnect().candidateNetworkGbps()).isEqualTo(1600.0);
        assertThat(evidence.interconnect().candidateCostOfTheSameWorkPerHour()).isEqualTo(43.74795);
    }

    @Test
    void shouldWriteEveryKindBackExactlyAsV010WroteIt() throws Exception {
        for (String written : List.of(WITHOUT_ACTION, EVACUATE, RECLAIM_IDLE, SWITCH_INSTANCE_TYPE, RESERVE_CAPACITY,
                MOVE_TO_SPOT, REDUCE_COMMUNICATION)) {
            String compact = Json.MAPPER.writeValueAsString(Json.MAPPER.readTree(written));

            assertThat(Json.writeString(read(written))).isEqualTo(compact);
        }
    }

    @Test
    void shouldReadARecordMadeWithoutAnActionOrEvidenceAndWriteThemEmptyAsV010Did() {
        Recommendation recommendation = read(WITHOUT_ACTION);

        assertThat(recommendation.action()).isNull();
        assertThat(recommendation.evidence()).isNull();
        assertThat(Json.writeString(recommendation)).contains("\"action\":{}").endsWith("\"evidence\":{}}");
    }

    private static Recommendation read(String json) {
        try {
            return Json.MAPPER.readValue(json, Recommendation.class);
        } catch (IOException e) {
            throw new AssertionError(e);
        }
    }

    // The v0.1.0 wire format of each kind, as that release's code wrote it. Long strings are wrapped
    // with a line continuation, which adds nothing to the text.

    private static final String WITHOUT_ACTION = """
            {"schemaVersion":1,"id":"reclaim_idle:instance:i-a","kind":"RECLAIM_IDLE","status":"open",\
            "target":{"type":"instance","id":"i-a","host":null,"instanceId":null,"provider":null,"region":null,\
            "instanceType":null,"lifecycle":null},"summary":"idle","action":{},"deadline":null,\
            "estimatedMonthlySaving":724.3,"currency":"USD","confidence":0.9,"createdAt":"2026-03-01T12:00:00Z",\
            "updatedAt":"2026-03-01T12:00:00Z","expiresAt":"2026-03-01T12:10:00Z","evidence":{}}""";

    private static final String EVACUATE = """
            {
              "schemaVersion": 1,
              "id": "evacuate:instance:i-0a1b2c3d4e5f60718",
              "kind": "EVACUATE",
              "status": "open",
              "target": {
                "type": "instance",
                "id": "i-0a1b2c3d4e5f60718",
                "host": "ip-10-0-12-34",
                "instanceId": "i-0a1b2c3d4e5f60718",
                "provider": "aws",
                "region": "us-east-1",
                "instanceType": "p4d.24xlarge",
                "lifecycle": "spot"
              },
              "summary": "aws spot interruption of i-0a1b2c3d4e5f60718 (p4d.24xlarge, us-east-1): move 2 job(s) on \
            8 GPU(s) by 2026-03-02T14:09:30Z to p4d.24xlarge on-demand at 32.77 USD/h",
              "action": {
                "instanceId": "i-0a1b2c3d4e5f60718",
                "deadline": "2026-03-02T14:09:30Z",
                "jobsKnown": true,
                "jobs": [
                  {
                    "jobId": "train-llama-7b",
                    "gpus": 6,
                    "checkpoints": true
                  },
                  {
                    "jobId": "eval-llama-7b",
                    "gpus": 2,
                    "checkpoints": false
                  }
                ],
                "replacementPool": {
                  "offerKey": "aws|us-east-1|p4d.24xlarge|on-demand",
                  "provider": "aws",
                  "region": "us-east-1",
                  "instanceType": "p4d.24xlarge",
                  "lifecycle": "on-demand",
                  "gpuModel": "A100-40GB",
                  "gpusPerInstance": 8,
                  "pricePerHour": 32.77,
                  "currency": "USD"
                }
              },
              "deadline": "2026-03-02T14:09:30Z",
              "estimatedMonthlySaving": 0.0,
              "currency": "USD",
              "confidence": 0.95,
              "createdAt": "2026-03-02T14:07:31.412Z",
              "updatedAt": "2026-03-02T14:07:31.412Z",
              "expiresAt": "2026-03-02T14:09:30Z",
              "evidence": {
                "eventId": "aws:i-0a1b2c3d4e5f60718:spot_interruption:2026-03-02T14:09:30Z",
                "capacityEventKind": "SPOT_INTERRUPTION",
                "cloudAction": "terminate",
                "noticedAt": "2026-03-02T14:07:30Z",
                "deadline": "2026-03-02T14:09:30Z",
                "secondsToDeadline": 118.588,
                "placementStatus": "CURRENT",
                "jobs": [
                  {
                    "jobId": "train-llama-7b",
                    "gpus": 6,
                    "checkpoints": true,
                    "costPerHour": 7.3732500000000005,
                    "checkpointIntervalSeconds": 1800.0,
                    "jobCostPerHour": 29.493000000000002,
                    "expectedWorkAtRisk": 7.3732500000000005
                  },
                  {
                    "jobId": "eval-llama-7b",
                    "gpus": 2,
                    "checkpoints": false,
                    "costPerHour": 2.45775
                  }
                ],
                "expectedWorkAtRisk": 7.3732500000000005,
                "placementUpdatedAt": "2026-03-02T14:07:00Z",
                "costAtRiskPerHour": 9.831000000000001,
                "currency": "USD",
                "unpricedGpus": 0,
                "gpusListed": 8,
                "gpuModel": "A100-40GB",
                "gpusPerInstance": 8,
                "replacementCandidates": 1
              }
            }
            """;

    private static final String RECLAIM_IDLE = """
            {
              "schemaVersion": 1,
              "id": "reclaim_idle:job:eval-wide",
              "kind": "RECLAIM_IDLE",
              "status": "open",
              "target": {
                "type": "job",
                "id": "eval-wide",
                "host": null,
                "instanceId": null,
                "provider": null,
                "region": null,
                "instanceType": null,
                "lifecycle": null
              },
              "summary": "Job eval-wide keeps 8.0 GPU(s) busy on its 2 p4d.24xlarge instance(s): shrink it to 1 and \
            release 1, saving 32.77 USD an hour, 23594.40 USD a month",
              "action": {
                "release": "instances",
                "jobId": "eval-wide",
                "instanceIds": [
                  "i-eval-wide-0-1"
                ],
                "keepInstances": 1,
                "instanceId": "i-eval-wide-0-1",
                "gpuUuids": [
                  "GPU-eval-wide-0-1-0",
                  "GPU-eval-wide-0-1-1",
                  "GPU-eval-wide-0-1-2",
                  "GPU-eval-wide-0-1-3",
                  "GPU-eval-wide-0-1-4",
                  "GPU-eval-wide-0-1-5",
                  "GPU-eval-wide-0-1-6",
                  "GPU-eval-wide-0-1-7"
                ]
              },
              "deadline": null,
              "estimatedMonthlySaving": 23594.399999999987,
              "currency": "USD",
              "confidence": 0.7,
              "createdAt": "2026-03-02T00:30:05Z",
              "updatedAt": "2026-03-02T00:30:05Z",
              "expiresAt": "2026-03-02T00:40:05Z",
              "evidence": {
                "periodStart": "2026-03-02T00:00:00Z",
                "periodEnd": "2026-03-02T00:30:00Z",
                "periodMinutes": 30,
                "smActive": 0.01,
                "smActiveThreshold": 0.05,
                "withdrawSmActive": 0.1,
                "secondsObserved": 14400.0,
                "secondsWithActivity": 14400.0,
                "instancesHeld": 2,
                "instancesNeeded": 1,
                "instancesToRelease": 1,
                "busyGpuEquivalents": 8.0,
                "gpusPerInstance": 8,
                "reportedWork": true,
                "idleCostPerHour": 32.76999999999998,
                "reserved": false,
                "lookbackStart": "2026-03-02T00:29:00Z",
                "lookbackEnd": "2026-03-02T00:30:00Z",
                "idleShare": 1.0,
                "hoursPerMonth": 720.0,
                "jobId": "eval-wide",
                "currency": "USD"
              }
            }
            """;

    private static final String SWITCH_INSTANCE_TYPE = """
            {
              "schemaVersion": 1,
              "id": "switch_instance_type:job:resnet-serve",
              "kind": "SWITCH_INSTANCE_TYPE",
              "status": "open",
              "target": {
                "type": "job",
                "id": "resnet-serve",
                "host": null,
                "instanceId": null,
                "provider": null,
                "region": null,
                "instanceType": null,
                "lifecycle": null
              },
              "summary": "Job resnet-serve pays 34.0031 USD per 1M images on p3.2xlarge; on 3 g4dn.xlarge it would \
            pay 4.3837 (estimated), 87% less: 7676.64 USD a month",
              "action": {
                "jobId": "resnet-serve",
                "gpus": 4,
                "fromPool": "aws|us-east-1|p3.2xlarge|on-demand",
                "toPool": {
                  "offerKey": "aws|us-east-1|g4dn.xlarge|on-demand",
                  "provider": "aws",
                  "region": "us-east-1",
                  "instanceType": "g4dn.xlarge",
                  "lifecycle": "on-demand",
                  "gpuModel": "T4-16GB",
                  "gpusPerInstance": 1,
                  "pricePerHour": 0.526,
                  "currency": "USD"
                },
                "toInstances": 3,
                "toGpus": 3
              },
              "deadline": null,
              "estimatedMonthlySaving": 7676.640000000005,
              "currency": "USD",
              "confidence": 0.5,
              "createdAt": "2026-03-03T00:02:05Z",
              "updatedAt": "2026-03-03T00:02:05Z",
              "expiresAt": "2026-03-03T00:12:05Z",
              "evidence": {
                "periodStart": "2026-03-02T23:00:00Z",
                "periodEnd": "2026-03-03T00:00:00Z",
                "periodMinutes": 60,
                "lookbackStart": "2026-03-02T00:00:00Z",
                "lookbackEnd": "2026-03-03T00:00:00Z",
                "runningShare": 1.0,
                "basis": "estimated",
                "unit": "images",
                "workload": "resnet50-int8",
                "serving": true,
                "workUnitsPerHour": 359966.84156924405,
                "hoursPerMonth": 720.0,
                "currentCostPerHour": 12.240000000000006,
                "currentCostPerMillionUnits": 34.003131918042214,
                "candidateCostPerMillionUnits": 4.383737105120146,
                "candidateInstances": 3,
                "savingRatio": 0.871078431372549,
                "minSavingRatio": 0.15,
                "withdrawSavingRatio": 0.1,
                "smActive": 0.018369087986648134,
                "dramActive": 0.3,
                "candidatesWorthIt": 3,
                "currency": "USD",
                "workloadClass": "inference",
                "workloadClassFrom": "traits",
                "performanceSource": "table:inference",
                "performanceRatio": 1.3928896991795807,
                "communicationBound": false,
                "networkRatio": 2.5,
                "estimatedSpeedup": 1.3928896991795807,
                "candidatePricePerHour": 0.526,
                "candidatePricePerGpuHour": 0.526,
                "quoteCurrency": "USD",
                "exchangeRate": 1.0,
                "peakUnitsPerHour": 9387609.951789632,
                "peakUnitsPerGpuHour": 2346902.487947408,
                "headroom": 0.3,
                "headroomFrom": "default",
                "candidateCapacityPerGpuHour": 4249669.190573137,
                "candidateCostPerHour": 1.578
              }
            }
            """;

    private static final String RESERVE_CAPACITY = """
            {
              "schemaVersion": 1,
              "id": "reserve_capacity:pool:aws|us-east-1|p4d.24xlarge|on-demand",
              "kind": "RESERVE_CAPACITY",
              "status": "open",
              "target": {
                "type": "pool",
                "id": "aws|us-east-1|p4d.24xlarge|on-demand",
                "host": null,
                "instanceId": null,
                "provider": "aws",
                "region": "us-east-1",
                "instanceType": "p4d.24xlarge",
                "lifecycle": "on-demand"
              },
              "summary": "Reserve 3 x p4d.24xlarge in aws us-east-1 for 12 months (559777.14 USD committed): 3 stay \
            busy in 90% of 168 h, above the 65% break-even; saves 24774.12 USD a month (history 168 h of a 8760 h \
            term)",
              "action": {
                "reserveInstances": 3,
                "reservedAfter": 3,
                "termMonths": 12,
                "paymentOption": "no-upfront",
                "totalCommitment": 559777.14,
                "reservation": {
                  "offerKey": "aws|us-east-1|p4d.24xlarge|reserved",
                  "provider": "aws",
                  "region": "us-east-1",
                  "instanceType": "p4d.24xlarge",
                  "lifecycle": "reserved",
                  "gpuModel": "A100-40GB",
                  "gpusPerInstance": 8,
                  "pricePerHour": 21.3005,
                  "currency": "USD"
                }
              },
              "deadline": null,
              "estimatedMonthlySaving": 24774.120000000006,
              "currency": "USD",
              "confidence": 0.6557534246575343,
              "createdAt": "2026-03-09T01:00:05Z",
              "updatedAt": "2026-03-09T01:00:05Z",
              "expiresAt": "2026-03-23T01:00:05Z",
              "evidence": {
                "lookbackHours": 168,
                "idleHours": 0,
                "onDemandPricePerHour": 32.77,
                "reservedPricePerHour": 21.3005,
                "currency": "USD",
                "quoteCurrency": "USD",
                "exchangeRate": 1.0,
                "discount": 0.3500000000000001,
                "breakEvenUtilization": 0.6499999999999999,
                "baselinePercentile": 0.1,
                "baselineInstances": 3,
                "reservedInUse": 0,
                "utilizationByInstance": [
                  1.0,
                  1.0,
                  1.0,
                  0.14365079365079364,
                  0.14285714285714285,
                  0.14285714285714285,
                  0.14285714285714285
                ],
                "peakInstances": 7,
                "instancesToReserve": 3,
                "termMonths": 12,
                "termSource": "price",
                "termHours": 8760,
                "paymentOption": "no-upfront",
                "totalCommitment": 559777.14,
                "historyHours": 168,
                "historyShareOfTerm": 0.019178082191780823,
                "historyShortfallHours": 8592
              }
            }
            """;

    private static final String MOVE_TO_SPOT = """
            {
              "schemaVersion": 1,
              "id": "move_to_spot:job:gpt-small-sync",
              "kind": "MOVE_TO_SPOT",
              "status": "open",
              "target": {
                "type": "job",
                "id": "gpt-small-sync",
                "host": null,
                "instanceId": null,
                "provider": null,
                "region": null,
                "instanceType": null,
                "lifecycle": null
              },
              "summary": "Run interruptible job gpt-small-sync on 4 p4d.24xlarge spot instance(s) instead of on \
            demand: with 0.0% of its time lost to interruptions it saves 91.75 USD an hour of work, 66058.42 USD a \
            month",
              "action": {
                "jobId": "gpt-small-sync",
                "gpus": 32,
                "fromPool": "aws|us-east-1|p4d.24xlarge|on-demand",
                "step": "move",
                "toPool": {
                  "offerKey": "aws|us-east-1|p4d.24xlarge|spot",
                  "provider": "aws",
                  "region": "us-east-1",
                  "instanceType": "p4d.24xlarge",
                  "lifecycle": "spot",
                  "gpuModel": "A100-40GB",
                  "gpusPerInstance": 8,
                  "pricePerHour": 9.831,
                  "currency": "USD"
                },
                "toInstances": 4
              },
              "deadline": null,
              "estimatedMonthlySaving": 66058.42076275499,
              "currency": "USD",
              "confidence": 0.8999642818559548,
              "createdAt": "2026-03-03T00:02:05Z",
              "updatedAt": "2026-03-03T00:02:05Z",
              "expiresAt": "2026-03-03T00:12:05Z",
              "evidence": {
                "periodStart": "2026-03-02T23:00:00Z",
                "periodEnd": "2026-03-03T00:00:00Z",
                "periodMinutes": 60,
                "lookbackStart": "2026-03-02T00:00:00Z",
                "lookbackEnd": "2026-03-03T00:00:00Z",
                "runningShare": 1.0,
                "onDemandPricePerHour": 32.77,
                "spotPricePerHour": 9.831,
                "quoteCurrency": "USD",
                "exchangeRate": 1.0,
                "instances": 4.0,
                "spotInstances": 4,
                "grossHourlySaving": 91.75600000000001,
                "hourlySaving": 91.74780661493749,
                "hoursPerMonth": 720.0,
                "interruptionRateSource": "catalog",
                "interruptionFrequency": 0.05,
                "interruptionFrequencyLow": 0.0,
                "interruptionsPerInstanceHour": 6.944444444444444e-05,
                "interruptionsPerInstanceHourLow": 0.0,
                "jobInterruptionsPerHour": 0.0002777777777777778,
                "checkpointIntervalSeconds": 3600.0,
                "restartSeconds": 900.0,
                "usefulFraction": 0.9997916875628492,
                "usefulFractionAtBandLow": 1.0,
                "monthlySavingAtBandHigh": 66058.42076275499,
                "monthlySavingAtBandLow": 66064.32,
                "delayHoursPerMonth": 0.15001620498985346,
                "netSavingRatio": 0.9999107046398871,
                "minNetSavingRatio": 0.1,
                "withdrawNetSavingRatio": 0.0,
                "currency": "USD"
              }
            }
            """;

    private static final String REDUCE_COMMUNICATION = """
            {
              "schemaVersion": 1,
              "id": "reduce_communication:job:dist-nc",
              "kind": "REDUCE_COMMUNICATION",
              "status": "open",
              "target": {
                "type": "job",
                "id": "dist-nc",
                "host": null,
                "instanceId": null,
                "provider": null,
                "region": null,
                "instanceType": null,
                "lifecycle": null
              },
              "summary": "Job dist-nc spends 35% of each step communicating (14807.52 USD a month); on 2 \
            Standard_ND96amsr_A100_v4 (1600 Gbit/s) the same work costs 10808.68 USD a month less",
              "action": {
                "jobId": "dist-nc",
                "fix": "faster-interconnect",
                "fromPool": "azure|eastus|Standard_NC96ads_A100_v4|on-demand",
                "toPool": {
                  "offerKey": "azure|eastus|Standard_ND96amsr_A100_v4|on-demand",
                  "provider": "azure",
                  "region": "eastus",
                  "instanceType": "Standard_ND96amsr_A100_v4",
                  "lifecycle": "on-demand",
                  "gpuModel": "A100-80GB",
                  "gpusPerInstance": 8,
                  "pricePerHour": 32.77,
                  "currency": "USD"
                },
                "toInstances": 2,
                "jobChanges": [
                  "overlap-communication-with-compute",
                  "gradient-accumulation",
                  "gradient-compression"
                ]
              },
              "deadline": null,
              "estimatedMonthlySaving": 10808.675999999987,
              "currency": "USD",
              "confidence": 0.6,
              "createdAt": "2026-03-03T00:02:05Z",
              "updatedAt": "2026-03-03T00:02:05Z",
              "expiresAt": "2026-03-03T00:12:05Z",
              "evidence": {
                "periodStart": "2026-03-02T23:30:00Z",
                "periodEnd": "2026-03-03T00:00:00Z",
                "periodMinutes": 30,
                "lookbackStart": "2026-03-02T00:00:00Z",
                "lookbackEnd": "2026-03-03T00:00:00Z",
                "runningShare": 1.0,
                "communicationOverheadRatio": 0.35,
                "threshold": 0.25,
                "withdrawRatio": 0.2,
                "costPerHour": 58.759999999999984,
                "communicationCostPerHour": 20.565999999999992,
                "exposedCommunicationHoursPerMonth": 251.99999999999997,
                "communicationCostPerMonth": 14807.519999999995,
                "hoursPerMonth": 720.0,
                "currency": "USD",
                "networkGbps": 80.0,
                "basis": "network-bandwidth",
                "candidateNetworkGbps": 1600.0,
                "networkRatio": 20.0,
                "estimatedRatioAfter": 0.026217228464419474,
                "candidateCostPerHour": 65.54,
                "candidateCostOfTheSameWorkPerHour": 43.74795,
                "quoteCurrency": "USD",
                "exchangeRate": 1.0
              }
            }
            """;
}
