package io.gpuledger.finance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.model.JobEconomics;
import java.time.Instant;
import java.util.Map;
import org.junit.jupiter.api.Test;

class WorkCostsTest {

    private static final Instant HOUR = Instant.parse("2026-11-30T23:00:00Z");

    @Test
    void shouldDivideTheCostOfTheMinutesThatReportedWorkByTheirUnitsEachMinuteOnce() {
        WorkCosts work = new WorkCosts(HOUR);
        // 0.02 for 10,000 tokens, 0.03 for 40,000 (sent twice), 0.05 for no work, and a minute of the hour before
        work.add(minute("infer-a", HOUR, 0.02, Map.of("tokens", 10_000.0)));
        work.add(minute("infer-a", HOUR.plusSeconds(60), 0.03, Map.of("tokens", 40_000.0)));
        work.add(minute("infer-a", HOUR.plusSeconds(60), 0.03, Map.of("tokens", 40_000.0)));
        work.add(minute("infer-a", HOUR.plusSeconds(120), 0.05, Map.of()));
        work.add(minute("infer-a", HOUR.minusSeconds(60), 9.0, Map.of("tokens", 1.0)));

        WorkCosts.PerMillion perMillion = work.of("infer-a", HOUR);

        // (0.02 + 0.03) / 50,000 tokens x 1,000,000
        assertThat(perMillion.unit()).isEqualTo("tokens");
        assertThat(perMillion.cost()).isCloseTo(1.0, within(1e-12));
        assertThat(work.of("infer-a", HOUR.plusSeconds(3600))).isNull();
        assertThat(work.of("someone-else", HOUR)).isNull();
    }

    @Test
    void shouldTakeTheLastVersionOfAMinuteTheEngineSentAsItsCostGrew() {
        WorkCosts work = new WorkCosts(HOUR);
        // the minute went out live with its work and part of its cost, then whole: 0.025, then 0.030, for 1M requests
        work.add(minute("infer-a", HOUR, 0.0, Map.of()));
        work.add(minute("infer-a", HOUR, 0.025, Map.of("requests", 1_000_000.0)));
        work.add(minute("infer-a", HOUR, 0.030, Map.of("requests", 1_000_000.0)));

        assertThat(work.of("infer-a", HOUR).cost()).isCloseTo(0.030, within(1e-12));
    }

    @Test
    void shouldLeaveOutAVersionOfAMinuteThatComesLongAfterTheJobsLaterMinutes() {
        WorkCosts work = new WorkCosts(HOUR);
        work.add(minute("infer-a", HOUR, 0.02, Map.of("tokens", 1_000_000.0)));
        work.add(minute("infer-a", HOUR.plus(WorkCosts.SENT_AGAIN_WITHIN).plusSeconds(60), 0.04,
                Map.of("tokens", 1_000_000.0)));
        // the first minute again, after the job's minutes went more than the span past it: summed already
        work.add(minute("infer-a", HOUR, 0.50, Map.of("tokens", 1_000_000.0)));

        // (0.02 + 0.04) for 2M tokens: 0.03 a million
        assertThat(work.of("infer-a", HOUR).cost()).isCloseTo(0.03, within(1e-12));
    }

    @Test
    void shouldNameTheUnitTheJobReportedMostOf() {
        WorkCosts work = new WorkCosts(HOUR);
        work.add(minute("train", HOUR, 0.6, Map.of("samples", 300.0, "tokens", 600_000.0)));

        // 0.6 for 600,000 tokens: 1.00 per million
        assertThat(work.of("train", HOUR)).isEqualTo(new WorkCosts.PerMillion("tokens", 0.6 / 600_000 * 1e6));
    }

    private static JobEconomics minute(String job, Instant start, double cost, Map<String, Double> units) {
        return new JobEconomics(job, start, start.plusSeconds(60), "USD", 1, 60, 0, cost, cost * 60, !units.isEmpty(),
                units, Map.of(), Map.of(), null, 0);
    }
}
