package io.gpuledger.alerts;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class StageListTest {

    /** Every open and close of every stage, in the order they came. */
    private final List<String> calls = new ArrayList<>();

    @Test
    void shouldOpenInOrderAndCloseInReverse() {
        StageList stages = new StageList(List.of(stage("board", false, false), stage("readers", false, false)));

        stages.openAll();
        stages.closeAll();

        assertThat(calls).containsExactly("open board", "open readers", "close readers", "close board");
        assertThat(stages.opened()).isEmpty();
    }

    @Test
    void shouldCloseAStageWhoseOpenFailedAndEveryStageBeforeItThenThrowTheFailure() {
        // Given three stages, the second of which fails halfway through its open, and the first fails to close
        StageList stages = new StageList(List.of(stage("board", false, true), stage("readers", true, false),
                stage("webhooks", false, false)));

        // When they are opened, the failure goes on, with the failure to close the first beside it
        assertThatThrownBy(stages::openAll).hasMessage("readers cannot open")
                .satisfies(e -> assertThat(e.getSuppressed()).extracting(Throwable::getMessage)
                        .containsExactly("board cannot close"));

        // Then the failed stage was closed (what it opened before failing), then the one before it; the third
        // was never opened, and nothing is left as opened
        assertThat(calls).containsExactly("open board", "open readers", "close readers", "close board");
        assertThat(stages.opened()).isEmpty();
    }

    private Stage stage(String name, boolean failsToOpen, boolean failsToClose) {
        return new Stage() {
            @Override
            public void open() {
                calls.add("open " + name);
                if (failsToOpen) {
                    throw new IllegalStateException(name + " cannot open");
                }
            }

            @Override
            public boolean isOpen() {
                return false;
            }

            @Override
            public void close() {
                calls.add("close " + name);
                if (failsToClose) {
                    throw new IllegalStateException(name + " cannot close");
                }
            }
        };
    }
}
