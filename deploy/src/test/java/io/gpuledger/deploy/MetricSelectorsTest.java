package io.gpuledger.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.gpuledger.deploy.MetricSelectors.Matcher;
import io.gpuledger.deploy.MetricSelectors.Selector;
import java.util.List;
import org.junit.jupiter.api.Test;

class MetricSelectorsTest {

    @Test
    void shouldFindTheMetricAndItsMatchersInsideAnAggregation() {
        List<Selector> selectors = MetricSelectors.of(
                "sum by (currency) (gpuledger_pool_cost_per_hour{provider=~\"$provider\", lifecycle!=\"spot\"})");

        assertThat(selectors).containsExactly(new Selector("gpuledger_pool_cost_per_hour", List.of(
                new Matcher("provider", "=~", "$provider"), new Matcher("lifecycle", "!=", "spot"))));
    }

    @Test
    void shouldTellMetricsFromFunctionsKeywordsAndLabelLists() {
        String energyPerUnit = """
                sum by (job, team) (rate(gpuledger_job_energy_joules_total{team=~"$team"}[5m]))
                / on (job, team) group_right ()
                (
                  gpuledger_job_throughput_units_per_gpu_second
                  * on (job, team) group_left
                  gpuledger_job_gpus
                )""";

        assertThat(MetricSelectors.metricNames(energyPerUnit)).containsExactly("gpuledger_job_energy_joules_total",
                "gpuledger_job_throughput_units_per_gpu_second", "gpuledger_job_gpus");
    }

    @Test
    void shouldReadRecordingRuleNamesWithColons() {
        assertThat(MetricSelectors.metricNames("gpuledger:team_cost:increase1h{team=~\"$team\"} or vector(0)"))
                .containsExactly("gpuledger:team_cost:increase1h");
    }

    @Test
    void shouldSkipStringsNumbersDurationsAndGrafanaVariables() {
        String expr = "label_join(count(x{a=\"not_a_metric\"} < 1e-9) offset 1h30m, \"pool\", \" \", \"provider\")"
                + " > bool 0.05 and topk($limit, y[$__rate_interval]) # a comment naming z";

        assertThat(MetricSelectors.metricNames(expr)).containsExactly("x", "y");
    }

    @Test
    void shouldReportASelectorWithoutAName() {
        assertThat(MetricSelectors.of("{__name__=~\"gpuledger_.+\"}"))
                .containsExactly(new Selector(null, List.of(new Matcher("__name__", "=~", "gpuledger_.+"))));
    }

    @Test
    void shouldRefuseAnUnclosedSelector() {
        assertThatThrownBy(() -> MetricSelectors.of("gpuledger_pool_gpus{provider=\"aws\""))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
