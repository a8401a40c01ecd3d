package io.gpuledger.alerts.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class WebhookSettingsTest {

    @ParameterizedTest
    @CsvSource(nullValues = "none", value = {
            "FINANCE_URL,                finance.url",
            "FINANCE_SECRET,             finance.secret",
            "FINANCE_SECRET_FILE,        finance.secret-file",
            "FINANCE_ALLOW_HTTP,         finance.allow-http",
            "FINANCE_MIN_SEVERITY,       finance.min-severity",
            "FIN_OPS_SLACK_FORMAT,       fin-ops-slack.format",
            "FINANCE_KINDS,              finance.kinds",
            "URL,                        none",
            "FINANCE_COLOUR,             none"})
    void shouldReadAReceiverFromAnEnvironmentVariable(String variable, String property) {
        // GPULEDGER_WEBHOOKS_<NAME>_<KEY>: the name in lower case, the key as in a property
        assertThat(WebhookSettings.fromEnvironment(variable)).isEqualTo(property);
    }
}
