package io.gpuledger.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.datatype.jsr310.JavaTimeModule;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The contract's mapping reads instants and doubles by shorter paths than databind's own: it must
 * read what databind with the JSR-310 module alone reads, and refuse what that refuses.
 */
class JsonReadingTest {

    /** Databind as it reads without the shorter paths: the JSR-310 module, the default number parser. */
    private static final ObjectMapper REFERENCE = new ObjectMapper().registerModule(new JavaTimeModule())
            .disable(DeserializationFeature.ADJUST_DATES_TO_CONTEXT_TIME_ZONE);

    record At(Instant at) {
    }

    record Reading(double value) {
    }

    @Test
    void shouldReadInstantsAsTheTimeModuleDoes() throws Exception {
        Random random = new Random(20261130);
        int direct = 0;
        for (int i = 0; i < 5_000; i++) {
            Instant instant = ContractFixtures.randomInstant(random);
            String text = instant.toString();
            if (UtcInstants.parse(text) != null) {
                direct++;
            }

            assertThat(Json.read(json(text), At.class).at()).as(text).isEqualTo(instant)
                    .isEqualTo(REFERENCE.readValue(json(text), At.class).at());
        }
        assertThat(direct).as("instants read without the module's formatter").isGreaterThan(4_000);
    }

    /** Forms the contract does not write, valid or not: each read, or refused, as the module alone does. */
    @ParameterizedTest
    @ValueSource(strings = {"2026-11-30T12:00:00Z", "2024-02-29T23:59:59.999999999Z", "2026-11-30T12:00:00.5Z",
        "2026-11-30T12:00:00+01:00", "2026-11-30T12:00:00.1234567891Z", "+12026-11-30T12:00:00Z",
        "0000-01-01T00:00:00Z", "2026-12-31T23:59:60Z", "1970-01-01T00:00:00.000Z", "2026-02-29T00:00:00Z",
        "2026-11-30T24:00:00Z", "2026-13-01T00:00:00Z", "2026-11-31T00:00:00Z", "2026-11-30T12:60:00Z",
        "2026-11-30t12:00:00Z", "2026-11-30T12:00:00z", "2026-11-30T12:00:00.Z", "2026-11-30 12:00:00Z",
        "2026-1l-30T12:00:00Z", "2026-11-30T12:00Z", "2026-11-30T12:00:00", ""})
    void shouldReadOrRefuseEveryFormAsTheTimeModuleDoes(String text) {
        Instant expected;
        try {
            expected = REFERENCE.readValue(json(text), At.class).at();
        } catch (Exception refused) {
            assertThatThrownBy(() -> Json.read(json(text), At.class)).isInstanceOf(InvalidRecordException.class)
                    .hasMessageStartingWith("at: ");
            return;
        }

        assertThat(Json.read(json(text), At.class).at()).isEqualTo(expected);
    }

    /**
     * A number where an instant belongs, or a string of one: the module would take it as epoch
     * seconds; seconds or milliseconds would be a guess.
     */
    @ParameterizedTest
    @ValueSource(strings = {"1764504000", "1764504000000", "1764504000.5", "-1", "0"})
    void shouldRefuseAnInstantWrittenAsANumber(String number) {
        for (String written : List.of(number, "\"" + number + "\"")) {
            byte[] json = ("{\"at\":" + written + "}").getBytes(StandardCharsets.UTF_8);

            assertThatThrownBy(() -> Json.read(json, At.class)).as(written).isInstanceOf(InvalidRecordException.class)
                    .hasMessage("at: invalid At: an instant must be an ISO-8601 string such as 2026-03-01T12:00:00Z,"
                            + " not the number " + number);
        }
    }

    @Test
    void shouldReadNumbersAsDoubleParseDoubleDoes() {
        Random random = new Random(20261201);
        List<String> texts = new ArrayList<>(List.of("0.1", "1e-320", "4.9E-324", "1.7976931348623157E308",
                "2.2250738585072011e-308", "9007199254740993", "0.30000000000000004", "-0.0", "123456789012345678901"));
        for (int i = 0; i < 5_000; i++) {
            double value = switch (random.nextInt(3)) {
                case 0 -> Double.longBitsToDouble(random.nextLong() & 0x7fefffffffffffffL);
                case 1 -> Math.round(random.nextDouble() * 1e6) / 1e4;
                default -> random.nextDouble() * 1000;
            };
            texts.add(Double.toString(value));
            texts.add(String.format("%.17g", value).replace(',', '.'));
        }
        for (String text : texts) {
            byte[] json = ("{\"value\":" + text + "}").getBytes(StandardCharsets.UTF_8);

            assertThat(Json.read(json, Reading.class).value()).as(text).isEqualTo(Double.parseDouble(text));
        }
    }

    private static byte[] json(String instant) {
        return ("{\"at\":\"" + instant + "\"}").getBytes(StandardCharsets.UTF_8);
    }
}
