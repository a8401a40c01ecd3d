package io.gpuledger.alerts;

import io.gpuledger.alerts.webhook.WebhookVariables;
import io.smallrye.config.EnvConfigSource;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfigBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URL;
import java.time.Duration;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.eclipse.microprofile.config.spi.ConfigSource;

/**
 * The alert service's settings where no Quarkus runs (the back-test, the rules' tests): the values
 * application.properties ships, without its profiles, under what the caller sets. The service itself
 * has them from Quarkus, which reads the same file.
 */
public final class ShippedSettings {

    /** Above application.properties (Quarkus gives it 250), as the environment is. */
    private static final int GIVEN_ORDINAL = 300;
    private static final Pattern AMOUNT = Pattern.compile("(\\d+)(ms|s|m|h|d)?");

    private ShippedSettings() {
    }

    /** The shipped settings with {@code properties} ({@code gpuledger.recommendation.ttl=…}) set over them. */
    public static AlertSettings with(Map<String, String> properties) {
        return read(new PropertiesConfigSource(properties, "given", GIVEN_ORDINAL));
    }

    /** The shipped settings with environment variables ({@code GPULEDGER_RECOMMENDATION_TTL=…}) set over them. */
    public static AlertSettings fromEnvironment(Map<String, String> variables) {
        return read(new EnvConfigSource(variables, GIVEN_ORDINAL), new WebhookVariables(variables));
    }

    private static AlertSettings read(ConfigSource... given) {
        return new SmallRyeConfigBuilder()
                .withConverter(Duration.class, 200, ShippedSettings::duration)
                .withSources(shipped())
                .withSources(given)
                .withMapping(AlertSettings.class)
                .withValidateUnknown(false)
                .build()
                .getConfigMapping(AlertSettings.class);
    }

    private static ConfigSource shipped() {
        URL file = ShippedSettings.class.getResource("/application.properties");
        if (file == null) {
            throw new IllegalStateException("application.properties of the alert service is not on the class path");
        }
        try {
            return new PropertiesConfigSource(file, 250);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A duration as Quarkus reads one: a number of seconds, a number with a unit ({@code 500ms}, {@code 30m},
     * {@code 7d}), or ISO-8601 ({@code PT30M}).
     */
    static Duration duration(String value) {
        String text = value.strip();
        Matcher amount = AMOUNT.matcher(text);
        if (!amount.matches()) {
            return Duration.parse(text);
        }
        long number = Long.parseLong(amount.group(1));
        String unit = amount.group(2) == null ? "s" : amount.group(2);
        return switch (unit) {
            case "ms" -> Duration.ofMillis(number);
            case "s" -> Duration.ofSeconds(number);
            case "m" -> Duration.ofMinutes(number);
            case "h" -> Duration.ofHours(number);
            default -> Duration.ofDays(number);
        };
    }
}
