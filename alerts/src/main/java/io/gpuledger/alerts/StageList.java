package io.gpuledger.alerts;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The stages in their order of opening, and those opened so far: opened in order, closed in the reverse. A
 * stage whose {@link Stage#open} fails is closed at once, with every stage opened before it, so that nothing it
 * or they opened (a producer, a consumer's connections) outlives the failure; then the failure goes on.
 */
final class StageList {

    private final List<Stage> stages;
    private final List<Stage> opened = new CopyOnWriteArrayList<>();

    StageList(List<Stage> stages) {
        this.stages = List.copyOf(stages);
    }

    List<Stage> all() {
        return stages;
    }

    /** Opens every stage in order; if one fails, closes it and those before it, and throws what it threw. */
    void openAll() {
        for (Stage stage : stages) {
            try {
                stage.open();
            } catch (RuntimeException failure) {
                closeAfterFailure(stage, failure);
                closeAll(failure);
                throw failure;
            }
            opened.add(stage);
        }
    }

    /** Closes the stages opened, the last first. */
    void closeAll() {
        closeAll(null);
    }

    List<Stage> opened() {
        return List.copyOf(opened);
    }

    /**
     * Closes the opened stages, the last first; with {@code failure}, a stage that fails to close is added to it
     * and the others are closed all the same.
     */
    private void closeAll(RuntimeException failure) {
        for (int i = opened.size() - 1; i >= 0; i--) {
            Stage stage = opened.remove(i);
            if (failure == null) {
                stage.close();
            } else {
                closeAfterFailure(stage, failure);
            }
        }
    }

    private static void closeAfterFailure(Stage stage, RuntimeException failure) {
        try {
            stage.close();
        } catch (RuntimeException closing) {
            failure.addSuppressed(closing);
        }
    }
}
