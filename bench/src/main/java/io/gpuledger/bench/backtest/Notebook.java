package io.gpuledger.bench.backtest;

import io.gpuledger.model.Offer;
import java.time.Instant;
import java.time.ZoneOffset;

/**
 * An interactive notebook on a one-GPU instance: used in one session a day, idle but held the rest
 * of the time, reporting no work. Released, its instance is gone until its user's next session
 * starts, on a new instance.
 */
final class Notebook {

    final String id;
    final String team;
    final Offer offer;
    final String gpuModel;
    final int sessionStartMinute;
    final int sessionMinutes;

    boolean held = true;
    int placement;

    Notebook(String id, String team, Offer offer, String gpuModel, int sessionStartMinute, int sessionMinutes) {
        this.id = id;
        this.team = team;
        this.offer = offer;
        this.gpuModel = gpuModel;
        this.sessionStartMinute = sessionStartMinute;
        this.sessionMinutes = sessionMinutes;
    }

    boolean inSession(Instant time) {
        int minute = time.atZone(ZoneOffset.UTC).getHour() * 60 + time.atZone(ZoneOffset.UTC).getMinute();
        return Math.floorMod(minute - sessionStartMinute, 24 * 60) < sessionMinutes;
    }

    String instanceId() {
        return "i-" + id + "-" + placement;
    }

    String host() {
        return id + "-" + placement;
    }

    String gpuUuid() {
        return "GPU-" + id + "-" + placement;
    }
}
