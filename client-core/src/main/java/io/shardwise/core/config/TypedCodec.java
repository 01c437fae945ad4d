package io.shardwise.core.config;

import io.shardwise.client.CachedValue;
import io.shardwise.client.CodecException;
import io.shardwise.client.ValueCodec;
import java.util.Objects;

/**
 * A built-in codec seen as a codec of the value type the caller asked for: writes check that a
 * value is of the type the codec stores, reads that a stored value is of the type asked for.
 */
final class TypedCodec<V> implements ValueCodec<V> {

  private final ValueCodec<Object> codec;
  private final Class<?> storedType;
  private final Class<V> valueType;

  private TypedCodec(ValueCodec<Object> codec, Class<?> storedType, Class<V> valueType) {
    this.codec = codec;
    this.storedType = storedType;
    this.valueType = valueType;
  }

  /**
   * {@code codec} as a codec of {@code valueType}.
   *
   * @throws IllegalArgumentException if the codec never produces a {@code valueType}
   */
  static <V> TypedCodec<V> of(ValueCodec<?> codec, Class<V> valueType) {
    Objects.requireNonNull(valueType, "valueType");
    Class<?> stored;
    switch (codec.name()) {
      case "utf8":
        stored = String.class;
        break;
      case "bytes":
        stored = byte[].class;
        break;
      default:
        stored = Object.class;
        break;
    }
    if (stored != Object.class && !valueType.isAssignableFrom(stored)) {
      throw new IllegalArgumentException(
          "codec "
              + codec.name()
              + " stores "
              + stored.getSimpleName()
              + " values, not "
              + valueType.getName());
    }
    @SuppressWarnings("unchecked") // only ever given values of `stored`, checked in encode
    ValueCodec<Object> untyped = (ValueCodec<Object>) codec;
    return new TypedCodec<>(untyped, stored, valueType);
  }

  @Override
  public String name() {
    return codec.name();
  }

  @Override
  public CachedValue encode(V value) {
    if (!storedType.isInstance(value)) {
      throw new IllegalArgumentException(
          "codec "
              + codec.name()
              + " stores "
              + storedType.getSimpleName()
              + " values but got a "
              + value.getClass().getName());
    }
    return codec.encode(value);
  }

  @Override
  public V decode(CachedValue stored) {
    Object value = codec.decode(stored);
    if (!valueType.isInstance(value)) {
      throw new CodecException(
          "expected a "
              + valueType.getName()
              + " but the stored value is a "
              + value.getClass().getName());
    }
    return valueType.cast(value);
  }

  @Override
  public boolean needsFlags() {
    return codec.needsFlags();
  }

  @Override
  public ValueCodec<V> withoutFlags() {
    ValueCodec<Object> plain = codec.withoutFlags();
    return plain == codec ? this : new TypedCodec<>(plain, storedType, valueType);
  }
}
