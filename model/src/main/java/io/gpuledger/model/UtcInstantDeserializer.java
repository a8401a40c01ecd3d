package io.gpuledger.model;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.BeanProperty;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.deser.ContextualDeserializer;
import com.fasterxml.jackson.databind.deser.std.StdScalarDeserializer;
import com.fasterxml.jackson.datatype.jsr310.deser.InstantDeserializer;
import java.io.IOException;
import java.time.Instant;

/**
 * The mapping's reader of instants: the contract's own form ({@link UtcInstants}) directly, every
 * other form, and every refusal, by the JSR-310 module's deserializer, as before.
 */
final class UtcInstantDeserializer extends StdScalarDeserializer<Instant> implements ContextualDeserializer {

    private final JsonDeserializer<?> databind;

    UtcInstantDeserializer() {
        this(InstantDeserializer.INSTANT);
    }

    private UtcInstantDeserializer(JsonDeserializer<?> databind) {
        super(Instant.class);
        this.databind = databind;
    }

    @Override
    public JsonDeserializer<?> createContextual(DeserializationContext context, BeanProperty property)
            throws JsonMappingException {
        JsonDeserializer<?> contextual = ((ContextualDeserializer) databind).createContextual(context, property);
        return contextual == databind ? this : new UtcInstantDeserializer(contextual);
    }

    @Override
    public Instant deserialize(JsonParser parser, DeserializationContext context) throws IOException {
        if (parser.currentToken() == JsonToken.VALUE_STRING) {
            Instant utc = UtcInstants.parse(parser.getText());
            if (utc != null) {
                return utc;
            }
        }
        return (Instant) databind.deserialize(parser, context);
    }
}
