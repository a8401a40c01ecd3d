package io.gpuledger.ingest.agent.usage;

import static org.assertj.core.api.Assertions.assertThat;

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
    void shouldReadTheFbAndCcpmColumnsAndKeepAProcessLastSample() {
        PmonOutput.Result streamed = PmonOutput.parse(
                Fixtures.read("nvidia-smi/pmon/pmon-s-um-fb-ccpm-ffmpeg-datarhei-core.txt"));
        PmonOutput.Result graphics = PmonOutput.parse(
                Fixtures.read("nvidia-smi/pmon/pmon-s-um-fb-ccpm-infoprovider-comment.txt"));

        // ten samples of the same process, the last one at 5 %, 1209 MiB
        assertThat(streamed.rows()).containsExactly(new Row(0, 3908637, 0.05, 1_267_728_384.0));
        assertThat(streamed.errors()).isEmpty();
        assertThat(graphics.rows()).containsExactly(
                new Row(0, 2479, null, 1_048_576.0),
                new Row(0, 2481, null, 654_311_424.0));
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
