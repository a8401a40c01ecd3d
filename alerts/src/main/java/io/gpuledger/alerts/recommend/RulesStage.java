package io.gpuledger.alerts.recommend;

import io.gpuledger.alerts.AlertSettings;
import io.gpuledger.alerts.Stage;
import io.gpuledger.model.CurrencyRates;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import java.time.Instant;

/**
 * The recommendation rules ({@link RecommendationRules}), built on the recommendation desk once it is open, with
 * the shipped catalogue of GPUs and the engine's table of exchange rates.
 */
@ApplicationScoped
public class RulesStage implements Stage {

    private final RecommendationDesk desk;
    private final AlertSettings settings;
    private volatile RecommendationRules rules;

    public RulesStage(RecommendationDesk desk, AlertSettings settings) {
        this.desk = desk;
        this.settings = settings;
    }

    @Override
    public void open() {
        rules = new RecommendationRules(desk, GpuCatalog.defaults(), settings, exchangeRates());
    }

    /** The engine's table: the file both are given ({@code GPULEDGER_RATES_FILE}), or the shipped one. */
    private CurrencyRates exchangeRates() {
        String currency = settings.reportingCurrency();
        return settings.ratesFile().map(file -> CurrencyRates.load(file, currency))
                .orElseGet(() -> CurrencyRates.shipped(currency));
    }

    @Override
    public boolean isOpen() {
        return rules != null;
    }

    /** Nothing to close: what the rules publish goes through the desk. */
    @Override
    public void close() {
    }

    @Override
    public void sweep(Instant now) {
        rules.sweep(now);
    }

    @Produces
    @ApplicationScoped
    RecommendationRules rules() {
        return Stage.opened(rules);
    }
}
