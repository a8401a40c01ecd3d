package io.gpuledger.finance;

/**
 * The columns of a FOCUS 1.2 file as GPU Ledger writes it, in the order written: the specification's columns
 * first, by name, then this project's own, each prefixed {@code x_}. Only the columns this project can fill
 * are written; the ones it cannot know (availability zone, capacity reservations, sub-accounts) are left out,
 * as the specification allows for a provider that does not support them.
 */
public enum FocusColumn {
    BILLED_COST("BilledCost", Kind.DECIMAL),
    BILLING_ACCOUNT_ID("BillingAccountId", Kind.STRING),
    BILLING_ACCOUNT_NAME("BillingAccountName", Kind.STRING),
    BILLING_CURRENCY("BillingCurrency", Kind.STRING),
    BILLING_PERIOD_END("BillingPeriodEnd", Kind.DATE_TIME),
    BILLING_PERIOD_START("BillingPeriodStart", Kind.DATE_TIME),
    CHARGE_CATEGORY("ChargeCategory", Kind.STRING),
    CHARGE_CLASS("ChargeClass", Kind.STRING),
    CHARGE_DESCRIPTION("ChargeDescription", Kind.STRING),
    CHARGE_FREQUENCY("ChargeFrequency", Kind.STRING),
    CHARGE_PERIOD_END("ChargePeriodEnd", Kind.DATE_TIME),
    CHARGE_PERIOD_START("ChargePeriodStart", Kind.DATE_TIME),
    COMMITMENT_DISCOUNT_CATEGORY("CommitmentDiscountCategory", Kind.STRING),
    COMMITMENT_DISCOUNT_ID("CommitmentDiscountId", Kind.STRING),
    COMMITMENT_DISCOUNT_NAME("CommitmentDiscountName", Kind.STRING),
    COMMITMENT_DISCOUNT_QUANTITY("CommitmentDiscountQuantity", Kind.DECIMAL),
    COMMITMENT_DISCOUNT_STATUS("CommitmentDiscountStatus", Kind.STRING),
    COMMITMENT_DISCOUNT_TYPE("CommitmentDiscountType", Kind.STRING),
    COMMITMENT_DISCOUNT_UNIT("CommitmentDiscountUnit", Kind.STRING),
    CONSUMED_QUANTITY("ConsumedQuantity", Kind.DECIMAL),
    CONSUMED_UNIT("ConsumedUnit", Kind.STRING),
    CONTRACTED_COST("ContractedCost", Kind.DECIMAL),
    CONTRACTED_UNIT_PRICE("ContractedUnitPrice", Kind.DECIMAL),
    EFFECTIVE_COST("EffectiveCost", Kind.DECIMAL),
    INVOICE_ID("InvoiceId", Kind.STRING),
    INVOICE_ISSUER_NAME("InvoiceIssuerName", Kind.STRING),
    LIST_COST("ListCost", Kind.DECIMAL),
    LIST_UNIT_PRICE("ListUnitPrice", Kind.DECIMAL),
    PRICING_CATEGORY("PricingCategory", Kind.STRING),
    PRICING_QUANTITY("PricingQuantity", Kind.DECIMAL),
    PRICING_UNIT("PricingUnit", Kind.STRING),
    PROVIDER_NAME("ProviderName", Kind.STRING),
    PUBLISHER_NAME("PublisherName", Kind.STRING),
    REGION_ID("RegionId", Kind.STRING),
    REGION_NAME("RegionName", Kind.STRING),
    RESOURCE_ID("ResourceId", Kind.STRING),
    RESOURCE_NAME("ResourceName", Kind.STRING),
    RESOURCE_TYPE("ResourceType", Kind.STRING),
    SERVICE_CATEGORY("ServiceCategory", Kind.STRING),
    SERVICE_NAME("ServiceName", Kind.STRING),
    SERVICE_SUBCATEGORY("ServiceSubcategory", Kind.STRING),
    SKU_ID("SkuId", Kind.STRING),
    SKU_METER("SkuMeter", Kind.STRING),
    SKU_PRICE_DETAILS("SkuPriceDetails", Kind.JSON),
    SKU_PRICE_ID("SkuPriceId", Kind.STRING),
    TAGS("Tags", Kind.JSON),
    /** The GPU's UUID: the row is one GPU's hour, or one job's part of it. */
    X_GPU_UUID("x_GpuUuid", Kind.STRING),
    X_GPU_MODEL("x_GpuModel", Kind.STRING),
    /** The job the row charges; null for a shared GPU's time no job took. */
    X_JOB_ID("x_JobId", Kind.STRING),
    X_TEAM("x_Team", Kind.STRING),
    /** What the row's time with SM activity under 5% cost; null on a job's part of a GPU-hour it shared. */
    X_IDLE_COST("x_IdleCost", Kind.DECIMAL),
    /** The part of the cost that is an estimate for time no sample covered. */
    X_UNMONITORED_COST("x_UnmonitoredCost", Kind.DECIMAL),
    /** The GPU's mean SM activity (0–1) over the hour's sampled time; null on a job's part of a shared hour. */
    X_SM_ACTIVE("x_SmActive", Kind.DECIMAL),
    X_ENERGY_KWH("x_EnergyKwh", Kind.DECIMAL),
    /** The energy's CO2e: times its region's grid intensity and its provider's PUE; null where the grid is unknown. */
    X_CO2E_GRAMS("x_Co2eGrams", Kind.DECIMAL),
    /**
     * What a million units of the row's job's work cost in the row's hour (its minutes that reported work: their
     * cost over their units); null for a row of no job, or a job that reported no work that hour.
     */
    X_COST_PER_MILLION_UNITS("x_CostPer1MUnits", Kind.DECIMAL),
    /** The unit {@code x_CostPer1MUnits} counts ({@code tokens}, {@code samples}): the one the job reported most of. */
    X_WORK_UNIT("x_WorkUnit", Kind.STRING);

    /** How a column's values are typed in a file. */
    public enum Kind {
        STRING,
        /** Exact decimal: DECIMAL(38,16) in Parquet, plain digits in CSV. */
        DECIMAL,
        /** A UTC instant, {@code YYYY-MM-DDTHH:mm:ssZ} in CSV, a timestamp with time zone in Parquet. */
        DATE_TIME,
        /** A JSON object, as text. */
        JSON
    }

    private final String focusName;
    private final Kind kind;

    FocusColumn(String focusName, Kind kind) {
        this.focusName = focusName;
        this.kind = kind;
    }

    /** The column's name in the file. */
    public String focusName() {
        return focusName;
    }

    public Kind kind() {
        return kind;
    }
}
