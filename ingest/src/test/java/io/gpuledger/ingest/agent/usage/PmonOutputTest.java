package io.gpuledger.ingest.agent.usage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;
import static org.assertj.core.api.Assertions.within;

import io.gpuledger.ingest.agent.usage.PmonOutput.Row;
import io.gpuledger.ingest.testing.Fixtures;
import org.junit.jupiter.api.Test;

/** {@code nvidia-smi pmon} in each column layout its drivers printed (fixtures/FIXTURES.md). */
class PmonOutputTest {

    @Test
    void shouldReadTheLayoutBeforeDriver545ByItsHeader() {
        PmonOutput.Result result = PmonOutput.parse(
                Fixtures.read("nvidia-smi/pmon/pmon-s-um-fb-before-545-nvsmiparser-comment.txt"));

        assertThat(result.errors()).isEmpty();
        assertThat(result.rows()).containsExactly(
                new Row(0, 4673, null, 0.0),
                new Row(0, 4765, 0.0, 4_194_304.0));
    }

    @Test
    void shouldReadTheWiderColumnsOfDriver545() {
        PmonOutput.Result result = PmonOutput.parse(
                Fixtures.read("nvidia-smi/pmon/pmon-s-u-driver545-sonar-issue170.txt"));

        assertThat(result.errors()).isEmpty();
        assertThat(result.rows()).containsExactly(
                new Row(0, 1174916, 0.88, null), new Row(0, 1186862, null, null),
                new Row(1, 1174916, 0.92, null), new Row(1, 1223470, null, null),
                new Row(2, 1174916, 0.89, null), new Row(2, 941737, null, null));
    }

    @Test
    void shouldReadTheJpgAndOfaColumnsOfDrivers550And560AndSkipIdleGpus() {
        PmonOutput.Result idle = PmonOutput.parse(
                Fixtures.read("nvidia-smi/pmon/pmon-s-u-driver550-idle-sonar-issue170.txt"));
        PmonOutput.Result one = PmonOutput.parse(
                Fixtures.read("nvidia-smi/pmon/pmon-s-u-driver560-sonar-issue183.txt"));

        assertThat(idle.rows()).isEmpty();
        assertThat(idle.errors()).isEmpty();
        assertThat(one.rows()).containsExactly(new Row(0, 1647159, 0.0, null));
        assertThat(one.errors()).isEmpty();
    }

    @Test
    void shouldReadTheFbAndCcpmColumnsAndAverageAProcessSamples() {
        PmonOutput.Result streamed = PmonOutput.parse(
                Fixtures.read("nvidia-smi/pmon/pmon-s-um-fb-ccpm-ffmpeg-datarhei-core.txt"));
        PmonOutput.Result graphics = PmonOutput.parse(
                Fixtures.read("nvidia-smi/pmon/pmon-s-um-fb-ccpm-infoprovider-comment.txt"));

        // ten blocks, one header: sm 5, 4, 4, then 5 seven times = 48 % over 10 blocks; 1209 MiB throughout
        assertThat(streamed.rows()).singleElement().satisfies(row -> {
            assertThat(row.gpuIndex()).isZero();
            assertThat(row.pid()).isEqualTo(3908637);
            assertThat(row.smRatio()).isCloseTo(0.048, within(1e-12));
            assertThat(row.memoryBytes()).isEqualTo(1_267_728_384.0);
        });
        assertThat(streamed.errors()).isEmpty();
        assertThat(graphics.rows()).containsExactly(
                new Row(0, 2479, null, 1_048_576.0),
                new Row(0, 2481, null, 654_311_424.0));
    }

    /**
     * Three blocks in driver 545's layout (its header lines as in pmon-s-u-driver545-sonar-issue170.txt), the header
     * printed before each block; values written for the test.
     */
    @Test
    void shouldAverageEachProcessOverTheBlocksOfItsGpuCountingAbsenceAndDashAsZero() {
        String header = """
                # gpu         pid  type    sm    mem    enc    dec    command
                # Idx           #   C/G     %      %      %      %    name
                """;
        String text = header + """
                    0    1174916     C     88     54      -      -    python
                    0    1186862     C      -      -      -      -    python3
                    1    1174916     C     92     53      -      -    python
                """ + header + """
                    0    1174916     C     80     50      -      -    python
                    0    1186862     C     12      3      -      -    python3
                    1          -     -      -      -      -      -    -
                """ + header + """
                    0    1174916     C     70     45      -      -    python
                    1    1174916     C     90     52      -      -    python
                """;

        PmonOutput.Result result = PmonOutput.parse(text);

        assertThat(result.errors()).isEmpty();
        // GPU 0: (88 + 80 + 70) / 3; (- + 12 + absent) / 3. GPU 1, idle in the second block: (92 + 0 + 90) / 3
        assertThat(result.rows()).extracting(Row::gpuIndex, Row::pid).containsExactly(tuple(0, 1174916),
                tuple(0, 1186862), tuple(1, 1174916));
        assertThat(result.rows()).extracting(Row::smRatio).satisfiesExactly(
                sm -> assertThat(sm).isCloseTo(2.38 / 3, within(1e-12)),
                sm -> assertThat(sm).isCloseTo(0.04, within(1e-12)),
                sm -> assertThat(sm).isCloseTo(1.82 / 3, within(1e-12)));
    }

    /**
     * Three blocks in driver 550's layout (its header as in pmon-s-u-driver550-idle-sonar-issue170.txt) under one
     * header, as a streamed pmon prints them; values written for the test.
     */
    @Test
    void shouldTellBlocksApartUnderOneHeaderByTheGpuOrderAndARepeatedProcess() {
        String text = """
                # gpu         pid   type     sm    mem    enc    dec    jpg    ofa    command
                # Idx           #    C/G      %      %      %      %      %      %    name
                    0       2222     C     40      3      -      -      -      -    python
                    0       3333     C     20      1      -      -      -      -    python
                    1          -     -      -      -      -      -      -      -    -
                    0       3333     C     30      2      -      -      -      -    python
                    0       2222     C     50      4      -      -      -      -    python
                    1          -     -      -      -      -      -      -      -    -
                    0       2222     C     60      5      -      -      -      -    python
                    1       4444     C     10      1      -      -      -      -    python
                """;
        String oneGpu = """
                # gpu         pid   type     sm    mem    enc    dec    jpg    ofa    command
                # Idx           #    C/G      %      %      %      %      %      %    name
                    0       7777     C     30      3      -      -      -      -    python
                    0       7777     C     10      3      -      -      -      -    python
                """;

        PmonOutput.Result result = PmonOutput.parse(text);

        // GPU 0: 2222 (40 + 50 + 60) / 3, 3333 (20 + 30 + 0) / 3; GPU 1: 4444 (0 + 0 + 10) / 3
        assertThat(result.rows()).extracting(Row::pid).containsExactly(2222, 3333, 4444);
        assertThat(result.rows()).extracting(Row::smRatio).satisfiesExactly(
                sm -> assertThat(sm).isCloseTo(0.5, within(1e-12)),
                sm -> assertThat(sm).isCloseTo(0.5 / 3, within(1e-12)),
                sm -> assertThat(sm).isCloseTo(0.1 / 3, within(1e-12)));
        // one GPU, one process: the process printed again starts the next block, (30 + 10) / 2
        assertThat(PmonOutput.parse(oneGpu).rows()).singleElement()
                .satisfies(row -> assertThat(row.smRatio()).isCloseTo(0.2, within(1e-12)));
    }

    /**
     * Nine samples of a GPU that pmon watches alone, under one header (driver 550's, as in
     * pmon-s-u-driver550-idle-sonar-issue170.txt): two processes for 3 s, idle for 3 s, two others for 3 s; values
     * written for the test.
     */
    @Test
    void shouldEndASampleWhereALoneGpuTurnsIdleOrBusyAgain() {
        String twoProcesses = """
                    0       1111     C     50      3      -      -      -      -    python
                    0       2222     C     30      1      -      -      -      -    python
                """;
        String idle = """
                    0          -     -      -      -      -      -      -      -    -
                """;
        String twoOthers = """
                    0       3333     C     60      3      -      -      -      -    python
                    0       4444     C     30      1      -      -      -      -    python
                """;
        String text = """
                # gpu         pid   type     sm    mem    enc    dec    jpg    ofa    command
                # Idx           #    C/G      %      %      %      %      %      %    name
                """ + twoProcesses.repeat(3) + idle.repeat(3) + twoOthers.repeat(3);

        PmonOutput.Result result = PmonOutput.parse(text);

        assertThat(result.errors()).isEmpty();
        // nine samples: 1111 (3 x 50) / 9, 2222 (3 x 30) / 9, 3333 (3 x 60) / 9, 4444 (3 x 30) / 9
        assertThat(result.rows()).extracting(Row::pid).containsExactly(1111, 2222, 3333, 4444);
        assertThat(result.rows()).extracting(Row::smRatio).satisfiesExactly(
                sm -> assertThat(sm).isCloseTo(1.5 / 9, within(1e-12)),
                sm -> assertThat(sm).isCloseTo(0.9 / 9, within(1e-12)),
                sm -> assertThat(sm).isCloseTo(0.2, within(1e-12)),
                sm -> assertThat(sm).isCloseTo(0.1, within(1e-12)));
    }

    @Test
    void shouldFindColumnsByNameWhereverTheyStandAndKeepCommandsWithSpaces() {
        // fb before sm, as pmon -s mu printed it on some drivers
        String text = """
                # gpu        pid  type    fb    sm   mem   enc   dec   command
                # Idx          #   C/G    MB     %     %     %     %   name
                    0      25985     C   893    12     0     -     -   python3.7 train.py --epochs 3
                """;

        assertThat(PmonOutput.parse(text).rows()).containsExactly(new Row(0, 25985, 0.12, 936_378_368.0));
    }

    @Test
    void shouldSkipAndSayLinesItCannotRead() {
        String text = """
                    0       1111     C     50     1      -      -    before-any-header
                # gpu         pid   type     sm    mem    enc    dec    command
                # Idx           #    C/G      %      %      %      %    name
                    0       2222     C     40      3      -      -    python
                    0        abc     C     40      3      -      -    python
                    1       3333     C    140      3      -      -    python
                    2       4444
                    3       5555     C     20      1      -      -    python
                """;

        PmonOutput.Result result = PmonOutput.parse(text);

        assertThat(result.rows()).containsExactly(new Row(0, 2222, 0.40, null), new Row(3, 5555, 0.20, null));
        assertThat(result.errors()).hasSize(4).anySatisfy(e -> assertThat(e).contains("line 1").contains("header"))
                .anySatisfy(e -> assertThat(e).contains("line 5").contains("pid 'abc'"))
                .anySatisfy(e -> assertThat(e).contains("line 6").contains("above 100%"))
                .anySatisfy(e -> assertThat(e).contains("line 7").contains("columns"));
    }
}
