package io.gpuledger.alerts.webhook;

import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.eclipse.microprofile.config.Config;

/**
 * The webhook receivers configured for the service, as properties
 * ({@code gpuledger.webhooks.finance.url=...}) or as environment variables
 * ({@code GPULEDGER_WEBHOOKS_FINANCE_URL=...}; a receiver name is then read in lower case).
 */
public final class WebhookSettings {

    public static final String PREFIX = "gpuledger.webhooks.";
    private static final String ENV_PREFIX = "GPULEDGER_WEBHOOKS_";
    private static final String[] KEYS = {WebhookReceivers.MIN_SEVERITY, WebhookReceivers.URL_FILE,
        WebhookReceivers.URL, WebhookReceivers.FORMAT, WebhookReceivers.SECRET_FILE, WebhookReceivers.SECRET,
                WebhookReceivers.KINDS,
        WebhookReceivers.ALLOW_HTTP};

    private WebhookSettings() {
    }

    /** {@code <name>.<key>} → value, from every property or variable that configures a receiver. */
    public static Map<String, String> properties(Config config) {
        Map<String, String> found = new TreeMap<>();
        for (String name : config.getPropertyNames()) {
            String key = null;
            if (name.startsWith(PREFIX)) {
                key = dashed(name.substring(PREFIX.length()));
            } else if (name.startsWith(ENV_PREFIX)) {
                key = fromEnvironment(name.substring(ENV_PREFIX.length()));
            }
            if (key != null) {
                String property = key;
                config.getOptionalValue(name, String.class).ifPresent(value -> found.put(property, value));
            }
        }
        return found;
    }

    /**
     * {@code finance.allow.http} → {@code finance.allow-http}: the configuration also lists a
     * variable such as {@code GPULEDGER_WEBHOOKS_FINANCE_ALLOW_HTTP} under a dotted name, each
     * underscore a dot, which would otherwise read as a setting that does not exist.
     */
    static String dashed(String key) {
        int dot = key.indexOf('.');
        if (dot < 0) {
            return key;
        }
        String setting = key.substring(dot + 1);
        for (String known : KEYS) {
            if (!setting.equals(known) && setting.equals(known.replace('-', '.'))) {
                return key.substring(0, dot + 1) + known;
            }
        }
        return key;
    }

    /** {@code FINANCE_MIN_SEVERITY} → {@code finance.min-severity}; null when no key ends it. */
    static String fromEnvironment(String variable) {
        for (String key : KEYS) {
            String suffix = "_" + key.toUpperCase(Locale.ROOT).replace('-', '_');
            if (variable.endsWith(suffix) && variable.length() > suffix.length()) {
                String receiver = variable.substring(0, variable.length() - suffix.length());
                return receiver.toLowerCase(Locale.ROOT).replace('_', '-') + "." + key;
            }
        }
        return null;
    }
}
