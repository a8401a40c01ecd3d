package io.gpuledger.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.json.JsonWriteFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectWriter;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.Charset;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The sample reader against databind alone: the same samples, and refusals that name the same field. */
class TelemetryJsonTest {

    private static final String FULL = Json.writeString(ContractFixtures.fullSample());

    private static final String[] TEXTS = {"H100-80GB", "A100 \"SXM4\" 40GB", "nœud-é", "ノード-1", "rocket-🚀",
        "tab\tnew\nline", "back\\slash/slash", "ctrl-\u0001-\u001f", "line\u2028separator", "x"};

    /** A GPU time-sliced between an inference replica and a notebook of no known team, as writers write it. */
    private static final String SHARED = Json.writeString(sharedFixture());

    /** Tokens of an allocation, for damage that keeps close to its form. */
    private static final String[] ALLOCATION_TOKENS = {"{\"jobId\":", ",\"team\":", ",\"share\":",
        ",\"measuredBy\":", "\"sm\"", "\"memory\"", "\"even\"", "\"serve-a\"", "null", "0.5", "1", "}", "]", ",",
        "[", "{"};

    private static final String[] UNKNOWN_NAMES = {"agentVersion", "labels", "x-collector", "dcgm", "GPUUUID"};

    @Test
    void shouldReadVariedSamplesAsTheDatabindReaderDoes() {
        Random random = new Random(20261130);
        for (int i = 0; i < 1_000; i++) {
            TelemetrySample sample = variedSample(random);

            for (byte[] json : List.of(Json.write(sample), reshaped(sample, random))) {
                TelemetrySample read = TelemetryJson.read(json);

                assertThat(read).as(() -> text(json)).isEqualTo(Json.read(json, TelemetrySample.class))
                        .isEqualTo(sample);
            }
        }
    }

    @Test
    void shouldReadSamplesAsWritersWriteThemStraightFromTheBytesAndAlikeToDatabind() {
        Random random = new Random(20261201);
        int canonical = 0;
        for (int i = 0; i < 2_000; i++) {
            // Half as agents write them (ASCII names), half with anything in their texts
            TelemetrySample sample = variedSample(random);
            if (i % 2 == 0) {
                sample = writersForm(sample, random, i);
            }
            byte[] json = Json.write(sample);

            TelemetrySample read = CanonicalTelemetry.read(json, null);

            if (read != null) {
                canonical++;
                assertThat(read).as(() -> text(json)).isEqualTo(Json.read(json, TelemetrySample.class));
            }
        }
        assertThat(canonical).as("samples read without the parser").isGreaterThan(500);
        assertThat(CanonicalTelemetry.read(FULL.getBytes(StandardCharsets.UTF_8), null))
                .isEqualTo(ContractFixtures.fullSample());
    }

    /**
     * Numbers are read from the bytes: each to the double the JDK's own parser makes of its text (correctly rounded,
     * and no part of the reader), however many digits and whatever exponent it is written with.
     */
    @Test
    void shouldReadEveryNumberStraightFromTheBytesAsTheJdkParsesItsText() {
        Random random = new Random(20261206);
        List<String> numbers = new ArrayList<>(List.of("0", "1", "0.1", "0.30000000000000004", "1E3", "1e+3",
                "2.5e-3", "123456789012345678901234567890", "9007199254740993", "1.7976931348623157e308",
                "4.9e-324", "2.4703282292062328e-324", "72145567744.0", "0.000000000000000000001"));
        for (int i = 0; i < 3_000; i++) {
            numbers.add(switch (i % 3) {
                // The shortest text of a random double, as writers write them
                case 0 -> Double.toString(Math.abs(Double.longBitsToDouble(random.nextLong())))
                        .replace("Infinity", "1").replace("NaN", "2");
                // Up to 25 significant digits, then an exponent: more than a double holds
                case 1 -> random.nextInt(10) + "." + digits(random, 1 + random.nextInt(24)) + "e"
                        + (random.nextInt(600) - 300);
                // An integer of up to 20 digits, without a leading zero
                default -> (1 + random.nextInt(9)) + digits(random, random.nextInt(20));
            });
        }
        Pattern memory = Pattern.compile("\"memoryUsedBytes\":[^,]+");
        int read = 0;
        for (String number : numbers) {
            byte[] json = memory.matcher(FULL).replaceFirst("\"memoryUsedBytes\":" + number)
                    .getBytes(StandardCharsets.UTF_8);
            double expected = Double.parseDouble(number);

            TelemetrySample sample = CanonicalTelemetry.read(json, null);

            if (Double.isInfinite(expected)) {
                // Too large for a double: left to the parser, which refuses it as databind does
                assertThat(sample).as(number).isNull();
                continue;
            }
            assertThat(sample).as(number).isNotNull();
            assertThat(sample.memoryUsedBytes()).as(number).isEqualTo(expected);
            read++;
        }
        assertThat(read).isGreaterThan(2_900);
    }

    /** Anything but the writers' exact form is left to the parser, which then reads or refuses it as databind does. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = ';', quoteCharacter = '^', value = {
        "^{ => { ^", "^} => } ^", "\"gpuIndex\":3 => \"gpuIndex\":03", "\"gpuIndex\":3 => \"gpuIndex\":-3",
        "\"gpuIndex\":3 => \"gpuIndex\":1234567890", "\"smActive\":0.8734 => \"smActive\":.5",
        "\"smActive\":0.8734 => \"smActive\":1.", "\"smActive\":0.8734 => \"smActive\":01",
        "\"powerWatts\":612.4 => \"powerWatts\":1e400",
        "\"powerWatts\":612.4 => \"powerWatts\":NaN", "\"powerWatts\":612.4 => \"powerWatts\":6e",
        "\"team\":\"research\" => \"team\":\"re\\u0073earch\"", "\"team\":\"research\" => \"team\":\"équipe\"",
        "\"lifecycle\":\"on-demand\" => \"lifecycle\":\"reserved-3y\"",
        "\"time\":\"2026-11-30T10:00:00.123Z\" => \"time\":\"2026-11-30T12:00:00.123+02:00\"",
        "\"gpuFraction\":0.42857142857142855} => \"gpuFraction\":0.42857142857142855,\"x\":1}",
        "\"gpuFraction\":0.42857142857142855} => \"gpuFraction\":0.42857142857142855}}",
        "\"host\":\"gpu-node-00017\", => ",
    })
    void shouldLeaveAnyOtherFormToTheParser(String edits) {
        String json = edited(edits);

        assertThat(CanonicalTelemetry.read(json.getBytes(StandardCharsets.UTF_8), null)).as(json).isNull();
        assertSameVerdict(json);
    }

    @Test
    void shouldReadANullSmActiveAsActivityUnknownAlikeInBothReadersAndStraightFromTheBytes() {
        // Given the full sample as a writer sends it for a GPU whose exporter gave no activity reading
        String json = edited("\"smActive\":0.8734 => \"smActive\":null");
        byte[] bytes = json.getBytes(StandardCharsets.UTF_8);

        // When each reader reads it
        Verdict verdict = assertSameVerdict(json);
        TelemetrySample canonical = CanonicalTelemetry.read(bytes, null);

        // Then it is the same sample with its activity unknown, and the writer writes it so
        TelemetrySample expected = ContractFixtures.fullSample().toBuilder().smActive(null).build();
        assertThat(verdict.sample()).isEqualTo(expected);
        assertThat(verdict.sample().activityKnown()).isFalse();
        assertThat(canonical).isEqualTo(expected);
        assertThat(Json.writeString(expected)).isEqualTo(json);
    }

    @Test
    void shouldReadTheFullSampleAsTheDatabindReaderDoes() {
        byte[] json = FULL.getBytes(StandardCharsets.UTF_8);

        assertThat(TelemetryJson.read(json)).isEqualTo(Json.read(json, TelemetrySample.class))
                .isEqualTo(ContractFixtures.fullSample());
        assertThat(TelemetryJson.read(Json.write(ContractFixtures.sample()))).isEqualTo(ContractFixtures.sample());
    }

    /** Forms no writer of the contract produces, but which databind accepts: read alike, not refused. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = ';', quoteCharacter = '^', value = {
        "\"gpuIndex\":3 => \"gpuIndex\":1.5",
        "\"gpuIndex\":3 => \"gpuIndex\":-0.5",
        "\"gpuIndex\":3 => \"gpuIndex\":\"3\"",
        "\"gpuIndex\":3 => \"gpuIndex\":3.0",
        "\"gpuIndex\":3 => \"gpuIndex\":1e0",
        "\"gpuIndex\":3 => \"gpuIndex\":-1,\"gpuIndex\":3",
        "\"smActive\":0.8734 => \"smActive\":\"0.5\"",
        "\"smActive\":0.8734 => \"smActive\":\" 0.5 \"",
        "\"smActive\":0.8734 => \"smActive\":1",
        "\"smActive\":0.8734 => \"smActive\":-0.0",
        "\"smOccupancy\":0.6121 => \"smOccupancy\":\"\"",
        "\"smOccupancy\":0.6121 => \"smOccupancy\":\"null\"",
        "\"powerWatts\":612.4 => \"powerWatts\":\"6.124e2\"",
        "\"powerWatts\":612.4 => \"powerWatts\":6124E-1",
        "\"memoryUsedBytes\":7.2145567744E10 => \"memoryUsedBytes\":72145567744",
        "\"memoryUsedBytes\":7.2145567744E10 => \"memoryUsedBytes\":123456789012345678901234567890",
        "\"gpuModel\":\"H100-80GB\" => \"gpuModel\":80",
        "\"gpuModel\":\"H100-80GB\" => \"gpuModel\":true",
        "\"jobId\":\"train-research-00042\" => \"jobId\":\"\"",
        "\"team\":\"research\" => \"team\":\" \"",
        "\"lifecycle\":\"on-demand\" => \"lifecycle\":\"ON_DEMAND\"",
        "\"lifecycle\":\"on-demand\" => \"lifecycle\":\"On-Demand\"",
        "\"time\":\"2026-11-30T10:00:00.123Z\" => \"time\":\"2026-11-30T12:00:00.123+02:00\"",
        "\"time\":\"2026-11-30T10:00:00.123Z\" => \"time\":\"2026-11-30T10:00:00.123-00:00\"",
        "\"time\":\"2026-11-30T10:00:00.123Z\" => \"time\":\"2026-11-30t10:00:00.123z\"",
        "\"time\":\"2026-11-30T10:00:00.123Z\" => \"time\":\" 2026-11-30T10:00:00.123Z \"",
        "\"time\":\"2026-11-30T10:00:00.123Z\" => \"time\":\"2026-11-30T24:00:00Z\"",
        "\"time\":\"2026-11-30T10:00:00.123Z\" => \"time\":\"2026-12-31T23:59:60Z\"",
        "\"time\":\"2026-11-30T10:00:00.123Z\" => \"time\":\"2026-11-30T10:00:00.Z\"",
        "\"time\":\"2026-11-30T10:00:00.123Z\" => \"time\":\"+12026-11-30T10:00:00Z\"",
        "\"time\":\"2026-11-30T10:00:00.123Z\" => \"time\":\"-0001-11-30T10:00:00Z\"",
        "\"gpuUuid\" => \"gpu\\u0055uid\"",
        "{\"gpuUuid\" => {\"labels\":{\"a\":[1,{\"b\":null}],\"c\":\"}\"},\"gpuUuid\"",
        "\"gpuFraction\":0.42857142857142855} => \"gpuFraction\":0.42857142857142855,\"offer\":{},"
                + "\"chargedFraction\":[]}",
        "^{ => \r\n\t {^",
        "^} => }\n ^",
    })
    void shouldAcceptWhatTheDatabindReaderAccepts(String edits) {
        String json = edited(edits);

        Verdict verdict = assertSameVerdict(json);

        assertThat(verdict.refusal()).as(json).isNull();
    }

    /** Refused by both readers, naming the same field; the message starts with the field and says what is wrong. */
    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = ';', quoteCharacter = '^', value = {
        // the edits of the full sample, or a whole input; the field named; a fragment of the message
        "\"gpuUuid\":\"GPU-7c1a58e2-93b4-3f0e-a2d1-3f8b9c0e6d47\", => ; gpuUuid; "
                + "Missing required creator property 'gpuUuid'",
        "\"lifecycle\":\"on-demand\", => ; lifecycle; Missing required",
        "\"time\":\"2026-11-30T10:00:00.123Z\", => ; time; Missing required",
        "\"intervalSeconds\":10.0, => && \"smActive\":0.8734, => ; intervalSeconds; Missing required",
        "\"smActive\":0.8734, => ; smActive; Missing required creator property 'smActive'",
        "\"intervalSeconds\":10.0 => \"intervalSeconds\":\"\"; intervalSeconds; Cannot coerce `null` to `double`",
        "\"smActive\":0.8734 => \"smActive\":\"high\"; smActive; not a valid `Double` value",
        "\"smOccupancy\":0.6121 => \"smOccupancy\":false; smOccupancy; from Boolean value",
        "\"gpuIndex\":3 => \"gpuIndex\":\"3.5\"; gpuIndex; not a valid `int` value",
        "\"gpuIndex\":3 => \"gpuIndex\":true; gpuIndex; from Boolean value",
        "\"gpuIndex\":3 => \"gpuIndex\":3000000000; gpuIndex; out of range of int",
        "\"gpuIndex\":3 => \"gpuIndex\":-1; gpuIndex; must not be negative",
        "\"gpuModel\":\"H100-80GB\" => \"gpuModel\":{\"vendor\":\"nvidia\"}; gpuModel; from Object value",
        "\"host\":\"gpu-node-00017\" => \"host\":[\"a\"]; host; from Array value",
        "\"host\":\"gpu-node-00017\" => \"host\":\" \"; host; is required",
        "\"instanceType\":\"p5.48xlarge\" => \"instanceType\":\"p5|x\"; instanceType; must not contain '|'",
        "\"team\":\"research\" => \"team\":\"r|d\"; team; must not contain '|'",
        "\"lifecycle\":\"on-demand\" => \"lifecycle\":\"preemptible\"; lifecycle; unknown lifecycle 'preemptible'",
        "\"lifecycle\":\"on-demand\" => \"lifecycle\":7; lifecycle; unknown lifecycle '7'",
        "\"lifecycle\":\"on-demand\" => \"lifecycle\":[\"spot\"]; lifecycle; Input mismatch reading Enum",
        "\"lifecycle\":\"on-demand\" => \"lifecycle\":null; lifecycle; is required",
        "\"time\":\"2026-11-30T10:00:00.123Z\" => \"time\":\"yesterday\"; time; could not be parsed",
        "\"time\":\"2026-11-30T10:00:00.123Z\" => \"time\":\"2026-11-30T10:00:00+0200\"; time; could not be parsed",
        "\"time\":\"2026-11-30T10:00:00.123Z\" => \"time\":\"2026-02-29T10:00:00Z\"; time; could not be parsed",
        "\"time\":\"2026-11-30T10:00:00.123Z\" => \"time\":\"2026-11-30T10:00:60Z\"; time; could not be parsed",
        "\"time\":\"2026-11-30T10:00:00.123Z\" => \"time\":\"2026-11-30T10:00:00.1234567891Z\"; time; "
                + "could not be parsed",
        "\"time\":\"2026-11-30T10:00:00.123Z\" => \"time\":true; time; Unexpected token (VALUE_TRUE)",
        "\"time\":\"2026-11-30T10:00:00.123Z\" => \"time\":1e30; time; not the number 1e30",
        "\"time\":\"2026-11-30T10:00:00.123Z\" => \"time\":1796032800; time; an instant must be an ISO-8601 string",
        "\"time\":\"2026-11-30T10:00:00.123Z\" => \"time\":1796032800.123456789; time; not the number",
        "\"time\":\"2026-11-30T10:00:00.123Z\" => \"time\":1.7960328e9; time; not the number 1.7960328e9",
        "\"time\":\"2026-11-30T10:00:00.123Z\" => \"time\":-1.5; time; not the number -1.5",
        "\"time\":\"2026-11-30T10:00:00.123Z\" => \"time\":\"1796032800\"; time; not the number 1796032800",
        "\"time\":\"2026-11-30T10:00:00.123Z\" => \"time\":\"1796032800.5\"; time; not the number",
        "\"time\":\"2026-11-30T10:00:00.123Z\" => \"time\":\"\"; time; is required",
        "\"smActive\":0.8734 => \"smActive\":NaN; smActive; Non-standard token 'NaN'",
        "\"smActive\":0.8734 => \"smActive\":\"NaN\"; smActive; must be a finite number",
        "\"smActive\":0.8734 => \"smActive\":1.5; smActive; between 0 and 1",
        "\"smActive\":0.8734 => \"smActive\":01; smActive; Leading zeroes",
        "\"intervalSeconds\":10.0 => \"intervalSeconds\":7200; intervalSeconds; must be at most 3600",
        "\"powerWatts\":612.4 => \"powerWatts\":-1; powerWatts; must not be negative",
        "\"gpuFraction\":0.42857142857142855 => \"gpuFraction\":0; gpuFraction; must be positive",
        "\"team\":\"research\", => \"team\":\"research\",\"labels\":{\"a\":[1,NaN]},; labels.a; Non-standard token",
        "\"team\":\"research\" => \"team\":\"research\\q\"; team; Unrecognized character escape",
        "\"team\":\"research\", => \"team\":\"research\" ; team; was expecting comma",
        "\"gpuFraction\":0.42857142857142855} => \"gpuFraction\":0.42857142857142855,\"allocations\":[],"
                + "\"gpuIndex\":4}; gpuIndex; "
                + "No fallback setter/field defined for creator property 'gpuIndex'",
        "\"smActive\":0.8734 => \"smActive\":2 && } => ,\"allocations\":[],\"x\":[NaN]}; smActive; between 0 and 1",
        "\"smActive\":0.8734 => \"smActive\":2 && } => ,\"x\":NaN}; x; Non-standard token 'NaN'",
        "\"smActive\":0.8734 => \"smActive\":2 && } => } {}; smActive; between 0 and 1",
        "} => } {}; $; Trailing token (of type START_OBJECT)",
        "} => } 5; $; Trailing token (of type VALUE_NUMBER_INT)",
        "} => }x; $; Unrecognized token 'x'",
        "} => }]; $; Unexpected close marker ']'",
        "\"gpuIndex\":3, => \"gpuIndex\":3; gpuIndex; was expecting comma",
        "} => }/*c*/; $; maybe a (non-standard) comment",
        "^ ^; $; No content to map due to end-of-input",
        "[]; $; from Array value",
        "[{\"a\":NaN}]; $; from Array value",
        "\"sample\"; $; from String value",
        "42; $; from Number value",
        "true; $; from boolean value",
        "{}; gpuUuid; Missing required creator property 'gpuUuid'",
        "{; $; Unexpected end-of-input",
        "}; $; Unexpected close marker '}'",
        "{'gpuUuid':'x'}; $; was expecting double-quote to start field name",
        "{gpuUuid:\"x\"}; $; was expecting double-quote to start field name",
        "/*c*/{}; $; maybe a (non-standard) comment",
        "{\"gpuUuid\":; gpuUuid; Unexpected end-of-input",
        "{\"gpuUuid\":\"x\",}; gpuUuid; was expecting double-quote to start field name",
    })
    void shouldRefuseWhatTheDatabindReaderRefusesNamingTheSameField(String input, String field, String fragment) {
        String json = input.contains("=>") ? edited(input) : input;

        Verdict verdict = assertSameVerdict(json);

        assertThat(verdict.refusal()).as(json).isNotNull();
        assertThat(verdict.refusal().field()).isEqualTo(field);
        assertThat(verdict.refusal().getMessage()).startsWith(field + ": ").contains(fragment);
    }

    @Test
    void shouldReadAGpuIndexLeftOutOrNullAsTheFirstGpuAsTheContractSays() {
        // docs/architecture.md: gpuIndex is optional, 0 where not given; a writer of the schema may leave it out
        for (String edit : List.of("\"gpuIndex\":3, => ", "\"gpuIndex\":3 => \"gpuIndex\":null")) {
            Verdict verdict = assertSameVerdict(edited(edit));

            assertThat(verdict.sample()).as(edit).isNotNull();
            assertThat(verdict.sample().gpuIndex()).isZero();
            assertThat(verdict.sample().gpuUuid()).isEqualTo(ContractFixtures.fullSample().gpuUuid());
        }
    }

    @Test
    void shouldRefuseEveryTruncationOfASampleAsTheDatabindReaderDoes() {
        for (int length = 1; length < FULL.length(); length++) {
            String json = FULL.substring(0, length);

            assertThat(assertSameVerdict(json).refusal()).as(json).isNotNull();
        }
    }

    @Test
    void shouldRefuseAnEmptyRecordAsTheDatabindReaderDoes() {
        for (byte[] empty : new byte[][] {null, new byte[0]}) {
            assertThatThrownBy(() -> TelemetryJson.read(empty)).isInstanceOf(InvalidRecordException.class)
                    .hasMessage("$: empty record, expected a JSON TelemetrySample");
            assertThatThrownBy(() -> Json.read(empty, TelemetrySample.class))
                    .hasMessage("$: empty record, expected a JSON TelemetrySample");
        }
    }

    /** Databind reads the JSON literal null as no sample at all, which no caller expects: it is refused. */
    @Test
    void shouldRefuseJsonNullAsTheDatabindReaderDoes() {
        byte[] json = "null".getBytes(StandardCharsets.UTF_8);

        assertThatThrownBy(() -> Json.read(json, TelemetrySample.class)).isInstanceOf(InvalidRecordException.class)
                .hasMessage("$: expected a JSON TelemetrySample, found null");
        assertThatThrownBy(() -> TelemetryJson.read(json)).isInstanceOf(InvalidRecordException.class)
                .hasMessage("$: expected a JSON TelemetrySample, found null");
    }

    @Test
    void shouldReadUtcTimesAsTheDatabindReaderDoesWhateverTheirPrecisionOrValidity() {
        Random random = new Random(7);
        for (int i = 0; i < 3_000; i++) {
            // Any day 1–31 of any month, hour up to 24 and second up to 60: some are not times at all.
            String fraction = random.nextInt(4) == 0 ? "" : "." + digits(random, 1 + random.nextInt(9));
            String time = String.format("%04d-%02d-%02dT%02d:%02d:%02d%sZ", random.nextInt(10_000),
                    1 + random.nextInt(12), 1 + random.nextInt(31), random.nextInt(25), random.nextInt(60),
                    random.nextInt(61), fraction);

            assertSameVerdict(FULL.replace("2026-11-30T10:00:00.123Z", time));
        }
    }

    @Test
    void shouldGiveTheDatabindReadersVerdictOnRandomlyDamagedSamples() {
        Random random = new Random(42);
        for (int i = 0; i < 5_000; i++) {
            assertSameVerdict(damaged(Json.writeString(variedSample(random)), random));
        }
    }

    /** A shared GPU's samples, half as agents write them: read from the bytes where they can be, alike to databind. */
    @Test
    void shouldReadSharedSamplesAsWritersWriteThemStraightFromTheBytesAndAlikeToDatabind() {
        Random random = new Random(20261205);
        int canonical = 0;
        for (int i = 0; i < 2_000; i++) {
            TelemetrySample sample = sharedSample(variedSample(random), random, i % 2 == 0);
            if (i % 2 == 0) {
                sample = writersForm(sample, random, i).toBuilder().jobId(TelemetrySample.SHARED_JOB).build();
            }
            byte[] json = Json.write(sample);

            TelemetrySample read = CanonicalTelemetry.read(json, null);

            if (read != null) {
                canonical++;
                assertThat(read).as(() -> text(json)).isEqualTo(Json.read(json, TelemetrySample.class))
                        .isEqualTo(sample);
            }
            assertThat(assertSameVerdict(json).sample()).as(() -> text(json)).isEqualTo(sample);
            assertThat(assertSameVerdict(reshaped(sample, random)).sample()).isEqualTo(sample);
        }
        assertThat(canonical).as("shared samples read without the parser").isGreaterThan(500);
        assertThat(CanonicalTelemetry.read(SHARED.getBytes(StandardCharsets.UTF_8), null)).isEqualTo(sharedFixture());
    }

    /** A shared GPU's sample in any other form, or with allocations databind refuses, gets databind's verdict. */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = ';', quoteCharacter = '^', value = {
        "^[{\"jobId\" => [ {\"jobId\"^",
        "^,\"team\":\"search\" => ^",
        "\"team\":null => \"team\":\"\"",
        "\"team\":null => \"team\":\" \"",
        "\"team\":null => \"team\":7",
        "\"team\":\"search\",\"share\":0.4 => \"share\":0.4,\"team\":\"search\"",
        "\"share\":0.4 => \"share\":1e400",
        "\"share\":0.4 => \"share\":\"0.4\"",
        "\"share\":0.4 => \"share\":null",
        "\"share\":0.4 => \"share\":-0.0",
        "\"share\":0.4 => \"share\":-0",
        "\"share\":0.4 => \"share\":4E-1",
        "\"share\":0.4 => \"share\":1.4",
        "\"share\":0.4 => \"share\":0.9",
        "\"share\":0.4 => \"share\":.4",
        "\"measuredBy\":\"sm\"} => \"measuredBy\":\"SM\"}",
        "\"measuredBy\":\"sm\"} => \"measuredBy\":\"requests\"}",
        "\"measuredBy\":\"sm\"} => \"measuredBy\":\"sm\",\"pid\":4242}",
        "\"measuredBy\":\"sm\"} => \"measuredBy\":null}",
        "\"jobId\":\"notebook-b\" => \"jobId\":\"serve-a\"",
        "\"jobId\":\"notebook-b\" => \"jobId\":\"a|b\"",
        "\"jobId\":\"notebook-b\" => \"jobId\":\"ノート\"",
        "\"jobId\":\"notebook-b\" => \"jobId\":null",
        "^}]} => },]}^",
        "^}]} => }]]}^",
        "^}]} => }^",
        "^}]} => },null]}^",
        "^\"allocations\":[ => \"allocations\":[],\"x\":[^",
        "^\"allocations\":[ => \"allocations\":\"spot\",\"x\":[^",
        "^\"allocations\":[ => \"allocations\":\"on-demand\",\"x\":[^",
        "^\"allocations\":[ => \"allocations\":\"2026-12-07T10:00:00Z\",\"x\":[^",
        "^\"allocations\":[{\"jobId\":\"serve-a\",\"team\":\"search\",\"share\":0.4,\"measuredBy\":\"sm\"}, => "
                + "\"allocations\":[^",
    })
    void shouldGiveASharedSampleDatabindsVerdictWhateverItsForm(String edits) {
        String json = SHARED;
        for (String edit : edits.split(" && ")) {
            String[] change = edit.split(" ?=> ?", 2);
            assertThat(json).as("the sample to edit").contains(change[0]);
            json = json.replaceFirst(Pattern.quote(change[0]), Matcher.quoteReplacement(change[1]));
        }

        assertSameVerdict(json);
    }

    @Test
    void shouldLeaveANumberLongerThanAnyDoubleIsWrittenToTheParsersLimits() {
        // The parser refuses a number of more than 1,000 characters (its StreamReadConstraints), also where its
        // value is an ordinary one: the reader without it must not take it
        String zeros = "0".repeat(1_000);
        for (String edit : List.of("\"share\":0.4=\"share\":0.4" + zeros,
                "\"share\":0.4=\"share\":0.4" + zeros.substring(950),
                "\"intervalSeconds\":10.0=\"intervalSeconds\":10.0" + zeros)) {
            String[] change = edit.split("=", 2);
            assertThat(SHARED).contains(change[0]);
            String json = SHARED.replaceFirst(Pattern.quote(change[0]), Matcher.quoteReplacement(change[1]));

            assertSameVerdict(json);
        }
        String tooLong = SHARED.replaceFirst(Pattern.quote("\"share\":0.4"), "\"share\":0.4" + zeros);
        assertThatThrownBy(() -> TelemetryJson.read(tooLong.getBytes(StandardCharsets.UTF_8)))
                .isInstanceOf(InvalidRecordException.class).hasMessageContaining("1000");
    }

    @Test
    void shouldReadASharedSampleWithNoAllocationsOrNullAllocationsAsOneJobsAlikeToDatabind() {
        String withoutAllocations = SHARED.substring(0, SHARED.indexOf(",\"allocations\":"));

        for (String allocations : List.of("[]", "null")) {
            String json = withoutAllocations + ",\"allocations\":" + allocations + "}";

            assertThat(assertSameVerdict(json).sample().shared()).as(json).isFalse();
        }
    }

    @Test
    void shouldGiveTheDatabindReadersVerdictOnRandomlyDamagedSharedSamples() {
        Random random = new Random(43);
        for (int i = 0; i < 5_000; i++) {
            TelemetrySample sample = sharedSample(variedSample(random), random, random.nextBoolean());
            String written = Json.writeString(sample);
            assertSameVerdict(damaged(written, random));
            // And damage within the allocations, where a straight reader could go wrong
            int allocations = written.indexOf("\"allocations\":");
            if (allocations > 0) {
                assertSameVerdict(written.substring(0, allocations)
                        + damaged(written.substring(allocations), random, ALLOCATION_TOKENS));
            }
        }
    }

    @Test
    void shouldReadOneSharedGpusSamplesInTurnAsTheDatabindReaderDoes() {
        Random random = new Random(20261206);
        GpuSampleReader reader = new GpuSampleReader();
        TelemetrySample gpu = writersForm(variedSample(random), random, 0);
        for (int i = 0; i < 1_000; i++) {
            TelemetrySample sample = variedSample(random).toBuilder().identityOf(gpu).build();
            if (random.nextInt(4) > 0) {
                sample = sharedSample(sample, random, random.nextInt(5) > 0);
            }
            String written = Json.writeString(sample);
            byte[] json = random.nextInt(10) == 0 ? damaged(written, random, ALLOCATION_TOKENS)
                    .getBytes(StandardCharsets.UTF_8) : written.getBytes(StandardCharsets.UTF_8);

            assertSameVerdict(json, reader::read);
        }
    }

    @Test
    void shouldTakeNoJobFromASharedSampleThatNamedAnotherBesideItsAllocations() {
        // Another writer names the GPU's job beside the allocations, then samples it with that job alone: the first
        // is read as shared, the second as the job's, whichever reader reads them in turn
        TelemetrySample alone = ContractFixtures.sample().toBuilder().jobId("nb-alice").build();
        String aloneJson = Json.writeString(alone);
        String sharedJson = Json.writeString(alone.toBuilder().time(alone.time().minusSeconds(10))
                .allocations(List.of(new Allocation("nb-alice", null, 0.5, SharePolicy.SM))).build())
                .replace("\"jobId\":\"shared\"", "\"jobId\":\"nb-alice\"");
        assertThat(sharedJson.substring(0, sharedJson.indexOf("\"time\"")))
                .isEqualTo(aloneJson.substring(0, aloneJson.indexOf("\"time\"")));
        GpuSampleReader reader = new GpuSampleReader();

        TelemetrySample first = reader.read(sharedJson.getBytes(StandardCharsets.UTF_8));
        TelemetrySample second = reader.read(aloneJson.getBytes(StandardCharsets.UTF_8));

        assertThat(first.jobId()).isEqualTo(TelemetrySample.SHARED_JOB);
        assertThat(second.jobId()).isEqualTo("nb-alice");
        assertThat(second).isEqualTo(TelemetryJson.read(aloneJson.getBytes(StandardCharsets.UTF_8)));
    }

    /**
     * One GPU's samples read in turn: mostly its identity again with new readings, sometimes a new
     * job or place, texts outside the writers' form, reshaped or damaged samples, a field slipped in
     * before the time. Each is read, or refused naming the same field, as databind reads it alone;
     * and where the bytes before the time repeat, the strings are the last sample's own.
     */
    @Test
    void shouldReadOneGpusSamplesInTurnAsTheDatabindReaderDoesTakingARepeatedIdentityFromTheLast() {
        Random random = new Random(20261201);
        GpuSampleReader reader = new GpuSampleReader();
        TelemetrySample gpu = writersForm(variedSample(random), random, 0);
        TelemetrySample last = null;
        int repeated = 0;
        for (int i = 0; i < 3_000; i++) {
            switch (random.nextInt(20)) {
                case 0 -> gpu = writersForm(variedSample(random), random, i);
                case 1 -> gpu = variedSample(random);
                case 2 -> gpu = gpu.toBuilder().jobId(pick(random, "train-7b", "train-70b", null)).build();
                default -> { }
            }
            TelemetrySample sample = variedSample(random).toBuilder().identityOf(gpu).build();
            String written = Json.writeString(sample);
            byte[] json = switch (random.nextInt(12)) {
                case 0 -> reshaped(sample, random);
                case 1 -> damaged(written, random).getBytes(StandardCharsets.UTF_8);
                case 2 -> written.replace(",\"time\":", ",\"x\":1,\"time\":").getBytes(StandardCharsets.UTF_8);
                default -> written.getBytes(StandardCharsets.UTF_8);
            };

            Verdict verdict = assertSameVerdict(json, reader::read);

            if (verdict.sample() != null && last != null && verdict.sample().host() == last.host()) {
                repeated++;
            }
            if (verdict.sample() != null) {
                last = verdict.sample();
            }
        }
        assertThat(repeated).as("samples whose identity was taken from the last").isGreaterThan(400);
    }

    @Test
    void shouldTakeNothingFromTheLastSampleOfAnotherGpu() {
        GpuSampleReader reader = new GpuSampleReader();
        TelemetrySample first = CanonicalTelemetry.read(FULL.getBytes(StandardCharsets.UTF_8), null);
        reader.read(FULL.getBytes(StandardCharsets.UTF_8));
        TelemetrySample other = first.toBuilder().gpuUuid("GPU-other").host("gpu-node-00018").build();

        TelemetrySample read = reader.read(Json.write(other));

        assertThat(read).isEqualTo(other);
        assertThat(reader.read(FULL.getBytes(StandardCharsets.UTF_8))).isEqualTo(ContractFixtures.fullSample());
    }

    /**
     * Two GPUs of one node, each read by its own reader: what they say alike is held once (the
     * strings are the same objects), their UUIDs are their own, and each sample is still read as
     * databind reads it.
     */
    @Test
    void shouldHoldOneCopyOfTheIdentityStringsGpusShare() {
        TelemetrySample first = ContractFixtures.fullSample();
        TelemetrySample second = first.toBuilder().gpuUuid("GPU-second").gpuIndex(1).build();
        byte[] firstJson = Json.write(first);
        byte[] secondJson = Json.write(second);

        TelemetrySample a = new GpuSampleReader().read(firstJson);
        TelemetrySample b = new GpuSampleReader().read(secondJson);

        assertThat(a).isEqualTo(Json.read(firstJson, TelemetrySample.class));
        assertThat(b).isEqualTo(Json.read(secondJson, TelemetrySample.class));
        assertThat(List.of(b.gpuModel(), b.host(), b.instanceId(), b.instanceType(), b.provider(), b.region(),
                b.jobId(), b.team()))
                .as("held once")
                .zipSatisfy(List.of(a.gpuModel(), a.host(), a.instanceId(), a.instanceType(), a.provider(),
                        a.region(), a.jobId(), a.team()), (mine, theirs) -> assertThat(mine).isSameAs(theirs));
        assertThat(b.gpuUuid()).isEqualTo("GPU-second");
        assertThat(TelemetryJson.read(secondJson).host())
                .as("a sample read without a GPU reader is not kept: its strings are its own")
                .isNotSameAs(a.host()).isEqualTo(a.host());
    }

    private static TelemetrySample sharedFixture() {
        return ContractFixtures.fullSample().toBuilder().jobId(TelemetrySample.SHARED_JOB)
                .allocations(List.of(new Allocation("serve-a", "search", 0.4, SharePolicy.SM),
                        new Allocation("notebook-b", null, 0.125, SharePolicy.SM)))
                .build();
    }

    /**
     * {@code sample} of a GPU shared by up to four jobs, their shares adding up to at most 1: with {@code ascii}, job
     * ids and teams as agents write them, otherwise texts of any kind as well.
     */
    private static TelemetrySample sharedSample(TelemetrySample sample, Random random, boolean ascii) {
        List<Allocation> allocations = new ArrayList<>();
        double left = 1;
        for (int k = random.nextInt(5); k > 0; k--) {
            String job = (ascii ? pick(random, "serve-a", "notebook-b", "x") : pick(random, TEXTS)) + "-" + k;
            String team = ascii ? pick(random, null, "", "search", "research") : pick(random, null, "équipe\\1", "x");
            double share = Math.min(left, switch (random.nextInt(4)) {
                case 0 -> Math.round(random.nextDouble() * left * 1e4) / 1e4;
                case 1 -> pick(random, 0.0, left, Double.MIN_VALUE);
                default -> random.nextDouble() * left;
            });
            left -= share;
            allocations.add(new Allocation(job, team, share, pick(random, SharePolicy.values())));
        }
        return sample.toBuilder().jobId(TelemetrySample.SHARED_JOB).allocations(allocations).build();
    }

    /** {@code sample} with texts as agents write them (ASCII), so that it is read straight from the bytes. */
    private static TelemetrySample writersForm(TelemetrySample sample, Random random, int node) {
        return sample.toBuilder().gpuModel(pick(random, null, "H100-80GB", "A100 SXM4 40GB"))
                .placement(new Placement("node-" + node, "i-0" + node, "p5.48xlarge", pick(random, "aws", "gcp"),
                        "us-east-1", sample.lifecycle()))
                .jobId(pick(random, null, "", " ", "train-7b")).team(pick(random, null, "", "research")).build();
    }

    /** {@code json} with one to three bytes runs deleted, or replaced or preceded by a token. */
    private static String damaged(String written, Random random) {
        return damaged(written, random, new String[] {"NaN", "null", "\"x\"", "{", "}", "[", "]", ",", ":", "1.5",
            "\"0.5\"", "true", "-", " ", "\"\"", "1e400", "\"2026-03-01T12:00:00+01:00\"", "\"spot\"",
            "\"gpuIndex\":", "\"smActive\":", "{\"a\":[1,{}]}", "0", "-1", "\"\\u00e9\"", "\"\\q\"", "1700000000",
            "9999999999", "\"RESERVED\""});
    }

    /** {@code json} with one to three bytes runs deleted, or replaced or preceded by one of {@code insertions}. */
    private static String damaged(String written, Random random, String[] insertions) {
        StringBuilder json = new StringBuilder(written);
        for (int damage = 1 + random.nextInt(3); damage > 0; damage--) {
            int at = random.nextInt(json.length() + 1);
            switch (random.nextInt(3)) {
                case 0 -> json.delete(at, Math.min(json.length(), at + 1 + random.nextInt(12)));
                case 1 -> json.insert(at, insertions[random.nextInt(insertions.length)]);
                default -> json.replace(at, Math.min(json.length(), at + 1),
                        insertions[random.nextInt(insertions.length)]);
            }
        }
        return json.toString();
    }

    /** A valid sample with its fields drawn at random: MIG or whole GPU, optional readings absent or not. */
    private static TelemetrySample variedSample(Random random) {
        boolean mig = random.nextInt(3) == 0;
        String uuid = (mig ? "MIG-" : "GPU-") + new UUID(random.nextLong(), random.nextLong());
        TelemetrySample.Builder sample = TelemetrySample.builder().gpuUuid(uuid)
                .gpuIndex(random.nextInt(10) == 0 ? Integer.MAX_VALUE : random.nextInt(8))
                .gpuModel(random.nextInt(4) == 0 ? null : pick(random, TEXTS))
                .host(pick(random, TEXTS) + "-" + random.nextInt(100)).instanceId("i-0" + random.nextInt(1 << 20))
                .instanceType(pick(random, TEXTS)).provider(pick(random, "aws", "gcp", "azure", "pro\"vider"))
                .region(pick(random, "us-east-1", "europe-west4", "région-1"))
                .lifecycle(pick(random, Lifecycle.values()))
                .jobId(pick(random, null, "", " ", "train-7b", "ジョブ", "job \"quoted\""))
                .team(pick(random, null, "", "research", "équipe\\1"))
                .time(ContractFixtures.randomInstant(random))
                .intervalSeconds(random.nextInt(5) == 0 ? Math.ulp(0.0) + random.nextDouble() * 3600 : 10);
        for (Reading reading : Reading.values()) {
            double value = switch (reading.range()) {
                case RATIO -> ratio(random);
                case WATTS -> watts(random);
                case NON_NEGATIVE -> amount(random);
            };
            sample.reading(reading, optional(random, value));
        }
        if (mig) {
            sample.migProfile(pick(random, "1g.10gb", "3g.40gb", "7g.80gb"))
                    .gpuFraction(random.nextBoolean() ? (1 + random.nextInt(7)) / 7.0 : 1 - random.nextDouble());
        }
        return sample.build();
    }

    /** Ratios as collectors give them (four places), at full precision, or at the bounds. */
    private static double ratio(Random random) {
        return switch (random.nextInt(5)) {
            case 0 -> Math.round(random.nextDouble() * 1e4) / 1e4;
            case 1 -> pick(random, 0.0, -0.0, 1.0, Double.MIN_VALUE, Math.nextDown(1.0));
            default -> random.nextDouble();
        };
    }

    /** Non-negative amounts across the whole range of doubles, subnormal to largest. */
    private static double amount(Random random) {
        return switch (random.nextInt(4)) {
            case 0 -> Math.abs(Double.longBitsToDouble(random.nextLong() & 0x7fefffffffffffffL));
            case 1 -> pick(random, 0.0, Double.MIN_VALUE, Double.MAX_VALUE, 4.2e10, 612.4);
            default -> Math.floor(random.nextDouble() * 1e12);
        };
    }

    /** Board power as {@link #amount} but within the contract's bound, keeping the amount's many digits. */
    private static double watts(Random random) {
        double amount = amount(random);
        return amount <= TelemetrySample.MAX_POWER_WATTS ? amount : amount % TelemetrySample.MAX_POWER_WATTS;
    }

    private static Double optional(Random random, double value) {
        return random.nextInt(4) == 0 ? null : value;
    }

    /**
     * The sample's JSON as other writers might send it: fields in another order, unknown fields among them
     * (objects and arrays too), nulls left out, spaces and line breaks, non-ASCII escaped, another encoding.
     */
    private static byte[] reshaped(TelemetrySample sample, Random random) {
        ObjectNode written = Json.MAPPER.valueToTree(sample);
        List<Map.Entry<String, JsonNode>> fields = new ArrayList<>(written.properties());
        Collections.shuffle(fields, random);
        ObjectNode reshaped = Json.MAPPER.createObjectNode();
        for (Map.Entry<String, JsonNode> field : fields) {
            if (random.nextInt(4) == 0) {
                reshaped.set(pick(random, UNKNOWN_NAMES), unknownValue(random));
            }
            // A null may be left out, but for smActive's: the field is required, null or not.
            if (!field.getValue().isNull() || field.getKey().equals("smActive") || random.nextBoolean()) {
                reshaped.set(field.getKey(), field.getValue());
            }
        }
        ObjectWriter writer = Json.MAPPER.writer();
        if (random.nextBoolean()) {
            writer = writer.withDefaultPrettyPrinter();
        }
        if (random.nextBoolean()) {
            writer = writer.with(JsonWriteFeature.ESCAPE_NON_ASCII);
        }
        try {
            String json = writer.writeValueAsString(reshaped);
            Charset charset = pick(random, StandardCharsets.UTF_8, StandardCharsets.UTF_8, StandardCharsets.UTF_16BE,
                    StandardCharsets.UTF_16LE);
            return json.getBytes(charset);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static JsonNode unknownValue(Random random) {
        return switch (random.nextInt(5)) {
            case 0 -> Json.MAPPER.createObjectNode().put("model", pick(random, TEXTS))
                    .set("nested", Json.MAPPER.createArrayNode().add(1).add(Json.MAPPER.createObjectNode()));
            case 1 -> Json.MAPPER.createArrayNode().add("}").add(-2.5e-7).addNull()
                    .add(Json.MAPPER.createArrayNode().add(true));
            case 2 -> Json.MAPPER.getNodeFactory().textNode(pick(random, TEXTS));
            case 3 -> Json.MAPPER.getNodeFactory().numberNode(random.nextLong());
            default -> Json.MAPPER.getNodeFactory().nullNode();
        };
    }

    /** The full sample with each {@code from => to} of {@code edits} (joined by {@code &&}) applied. */
    private static String edited(String edits) {
        String json = FULL;
        for (String edit : edits.split(" && ")) {
            String[] change = edit.split(" ?=> ?", 2);
            assertThat(json).as("the sample to edit").contains(change[0]);
            json = json.replaceFirst(Pattern.quote(change[0]), Matcher.quoteReplacement(change[1]));
        }
        return json;
    }

    /** Both readers read {@code json} into the same sample, or both refuse it naming the same field. */
    private static Verdict assertSameVerdict(String json) {
        return assertSameVerdict(json.getBytes(StandardCharsets.UTF_8));
    }

    private static Verdict assertSameVerdict(byte[] json) {
        return assertSameVerdict(json, TelemetryJson::read);
    }

    /** {@code reader} reads {@code json} into the sample databind reads, or refuses it naming the same field. */
    private static Verdict assertSameVerdict(byte[] json, Function<byte[], TelemetrySample> reader) {
        Verdict databind = Verdict.of(() -> Json.read(json, TelemetrySample.class));
        Verdict streaming = Verdict.of(() -> reader.apply(json));
        Supplier<String> both = () -> String.format("%s%n databind:  %s%n streaming: %s", text(json), databind,
                streaming);

        assertThat(streaming.sample()).as(both).isEqualTo(databind.sample());
        assertThat(streaming.field()).as(both).isEqualTo(databind.field());
        return streaming;
    }

    private record Verdict(TelemetrySample sample, InvalidRecordException refusal) {

        static Verdict of(Supplier<TelemetrySample> read) {
            try {
                return new Verdict(read.get(), null);
            } catch (InvalidRecordException e) {
                return new Verdict(null, e);
            }
        }

        String field() {
            return refusal == null ? null : refusal.field();
        }

        @Override
        public String toString() {
            return refusal == null ? "read " + sample : "refused, " + refusal.getMessage();
        }
    }

    private static String text(byte[] json) {
        return new String(json, StandardCharsets.UTF_8);
    }

    private static String digits(Random random, int count) {
        StringBuilder digits = new StringBuilder();
        for (int i = 0; i < count; i++) {
            digits.append(random.nextInt(10));
        }
        return digits.toString();
    }

    @SafeVarargs
    private static <T> T pick(Random random, T... choices) {
        return choices[random.nextInt(choices.length)];
    }
}
