package io.gpuledger.alerts.webhook;

import static org.assertj.core.api.Assertions.assertThat;

import io.gpuledger.alerts.AlertSettings;
import io.gpuledger.alerts.ShippedSettings;
import io.gpuledger.model.AnomalyKind;
import io.gpuledger.model.CostAnomaly;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class WebhookVariablesTest {

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
        assertThat(WebhookVariables.fromEnvironment(variable)).isEqualTo(property);
    }

    @ParameterizedTest
    @CsvSource({
            "FINANCE_ALLOW_HTTP,   finance,       allow-http",
            "FINANCE_SECRET_FILE,  finance,       secret-file",
            "FINANCE_URL_FILE,     finance,       url-file",
            "FINANCE_MIN_SEVERITY, finance,       min-severity",
            "FINANCE_URL,          finance,       url",
            "FIN_OPS_SLACK_FORMAT, fin-ops-slack, format",
            "FIN_OPS_KINDS,        fin-ops,       kinds"})
    void shouldReadAVariableAsTheOneSettingItNames(String variable, String receiver, String setting) {
        // The configuration also lists GPULEDGER_WEBHOOKS_FINANCE_ALLOW_HTTP as gpuledger.webhooks.finance.allow.http
        AlertSettings settings = ShippedSettings.fromEnvironment(Map.of("GPULEDGER_WEBHOOKS_" + variable, "x"));

        assertThat(settings.webhooks().receivers()).containsOnlyKeys(receiver);
        assertThat(settings.webhooks().receivers().get(receiver).given()).containsExactly(Map.entry(setting, "x"));
    }

    @Test
    void shouldConfigureTheSameReceiversFromTheEnvironmentAsFromProperties(@TempDir Path dir) {
        // Given receivers as variables: dashed settings, a name of several words, a URL file not (yet) there
        AlertSettings settings = ShippedSettings.fromEnvironment(Map.of(
                "GPULEDGER_WEBHOOKS_FINANCE_URL", "http://finance.internal/hooks",
                "GPULEDGER_WEBHOOKS_FINANCE_SECRET", "whsec_MTIzNDU2Nzg5MA==",
                "GPULEDGER_WEBHOOKS_FINANCE_ALLOW_HTTP", "true",
                "GPULEDGER_WEBHOOKS_FINANCE_MIN_SEVERITY", "critical",
                "GPULEDGER_WEBHOOKS_FIN_OPS_SLACK_URL", "https://hooks.slack.com/services/T0/B0/token",
                "GPULEDGER_WEBHOOKS_FIN_OPS_SLACK_FORMAT", "slack",
                "GPULEDGER_WEBHOOKS_FIN_OPS_SLACK_KINDS", "price-spike",
                "GPULEDGER_WEBHOOKS_AUDIT_URL_FILE", dir.resolve("audit-url").toString(),
                "GPULEDGER_WEBHOOKS_AUDIT_SECRET_FILE", dir.resolve("audit-secret").toString()));
        List<String> leftOut = new ArrayList<>();

        // When
        List<WebhookReceiver> receivers = WebhookReceivers.from(settings.webhooks(), leftOut::add);

        // Then each setting is read under the key a property would have
        assertThat(receivers).containsExactly(
                new WebhookReceiver("fin-ops-slack", URI.create("https://hooks.slack.com/services/T0/B0/token"),
                        WebhookReceiver.Format.SLACK, "", null, Set.of(AnomalyKind.PRICE_SPIKE), false),
                new WebhookReceiver("finance", URI.create("http://finance.internal/hooks"),
                        WebhookReceiver.Format.JSON, "whsec_MTIzNDU2Nzg5MA==", CostAnomaly.Severity.CRITICAL,
                        Set.of(), true));
        assertThat(leftOut).containsExactly("no webhook receiver audit: gpuledger.webhooks.audit.url-file names "
                + dir.resolve("audit-url") + ", which does not exist");
    }
}
