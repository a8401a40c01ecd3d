package io.gpuledger.alerts.recommend;

import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.time.Clock;

/** The service's shared objects that are not beans by themselves. */
public class RecommendationBeans {

    @Produces
    @Singleton
    RecommendationBook book() {
        return new RecommendationBook();
    }

    @Produces
    @Singleton
    Clock clock() {
        return Clock.systemUTC();
    }
}
