package io.gpuledger.alerts.webhook;

import io.smallrye.config.common.MapBackedConfigSource;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The webhook receivers configured as environment variables ({@code GPULEDGER_WEBHOOKS_FIN_OPS_URL=...}),
 * named as properties ({@code gpuledger.webhooks.fin-ops.url}). The environment alone cannot say where a
 * receiver's name ends and its setting begins when the name has words of its own; the settings are known,
 * so the name is what comes before one of them, read in lower case with dashes.
 */
public final class WebhookVariables extends MapBackedConfigSource {

    private static final long serialVersionUID = 1L;
    private static final String PREFIX = "GPULEDGER_WEBHOOKS_";
    /** Where the environment stands among the sources: above application.properties. */
    private static final int ORDINAL = 300;

    /** The process's environment; how Quarkus finds this source. */
    public WebhookVariables() {
        this(System.getenv());
    }

    public WebhookVariables(Map<String, String> variables) {
        super("webhook receivers in the environment", properties(variables), ORDINAL);
    }

    private static Map<String, String> properties(Map<String, String> variables) {
        Map<String, String> found = new HashMap<>();
        variables.forEach((variable, value) -> {
            if (variable.startsWith(PREFIX)) {
                String key = fromEnvironment(variable.substring(PREFIX.length()));
                if (key != null) {
                    found.put(WebhookReceivers.PREFIX + key, value);
                }
            }
        });
        return found;
    }

    /** {@code FINANCE_MIN_SEVERITY} → {@code finance.min-severity}; null when no setting ends it. */
    static String fromEnvironment(String variable) {
        for (String setting : WebhookReceivers.SETTINGS) {
            String suffix = "_" + setting.toUpperCase(Locale.ROOT).replace('-', '_');
            if (variable.endsWith(suffix) && variable.length() > suffix.length()) {
                String receiver = variable.substring(0, variable.length() - suffix.length());
                return receiver.toLowerCase(Locale.ROOT).replace('_', '-') + "." + setting;
            }
        }
        return null;
    }
}
