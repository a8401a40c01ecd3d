package io.gpuledger.alerts.api;

import io.gpuledger.model.Json;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.MultivaluedMap;
import jakarta.ws.rs.ext.MessageBodyWriter;
import jakarta.ws.rs.ext.Provider;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.annotation.Annotation;
import java.lang.reflect.Type;

/**
 * Writes what a resource returns as JSON with the contract's own mapper ({@link Json}): the API
 * answers in exactly the JSON of the records on the topics (UTC instants, the wire's names), and
 * a resource returns its typed value rather than a string it wrote itself.
 */
@Provider
@Produces(MediaType.APPLICATION_JSON)
public class JsonBodies implements MessageBodyWriter<Object> {

    @Override
    public boolean isWriteable(Class<?> type, Type genericType, Annotation[] annotations, MediaType mediaType) {
        return type != String.class && MediaType.APPLICATION_JSON_TYPE.isCompatible(mediaType);
    }

    @Override
    public void writeTo(Object value, Class<?> type, Type genericType, Annotation[] annotations,
            MediaType mediaType, MultivaluedMap<String, Object> headers, OutputStream body) throws IOException {
        body.write(Json.write(value));
    }
}
