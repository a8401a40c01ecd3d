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
            "FINANCE_URL_FILE,           finance.url-file",
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

    @ParameterizedTest
    @CsvSource({
            "finance.allow.http,   finance.allow-http",
            "finance.secret.file,  finance.secret-file",
            "finance.url.file,     finance.url-file",
            "finance.min.severity, finance.min-severity",
            "finance.allow-http,   finance.allow-http",
            "finance.url,          finance.url",
            "finance.colour.x,     finance.colour.x"})
    void shouldReadADashedSettingListedUnderItsDottedName(String listed, String property) {
        // The configuration lists GPULEDGER_WEBHOOKS_FINANCE_ALLOW_HTTP as gpuledger.webhooks.finance.allow.http too
        assertThat(WebhookSettings.dashed(listed)).isEqualTo(property);
    }
}
