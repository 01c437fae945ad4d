package io.shardwise.spring.cache;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.shardwise.client.NodeException;
import io.shardwise.routing.Node;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.springframework.cache.concurrent.ConcurrentMapCache;

/** Failed reads and writes become misses, logged once per cache and kind; evictions still fail. */
class ShardwiseCacheErrorHandlerTest {

  private final Logger logger = (Logger) LoggerFactory.getLogger(ShardwiseCacheErrorHandler.class);
  private final ListAppender<ILoggingEvent> lines = new ListAppender<>();

  @BeforeEach
  void capture() {
    lines.start();
    logger.addAppender(lines);
    logger.setLevel(Level.DEBUG);
  }

  @AfterEach
  void release() {
    logger.detachAppender(lines);
    logger.setLevel(null);
  }

  @Test
  void readsAndWritesAreAbsorbedAndEachKindIsLoggedOnceAtWarn() {
    ShardwiseCacheErrorHandler handler = new ShardwiseCacheErrorHandler();
    ConcurrentMapCache books = new ConcurrentMapCache("books");
    ConcurrentMapCache authors = new ConcurrentMapCache("authors");
    RuntimeException down = new IllegalStateException("server 127.0.0.1:11211 is down");

    for (int i = 0; i < 5; i++) {
      handler.handleCacheGetError(down, books, i);
    }
    handler.handleCachePutError(down, books, 1, "v");
    handler.handleCacheGetError(down, authors, "ann");
    handler.handleCacheGetError(new UnsupportedOperationException("other"), books, 1);

    assertThat(handler.absorbedCount()).isEqualTo(8);
    assertThat(lines.list.stream().filter(e -> e.getLevel() == Level.WARN))
        .extracting(ILoggingEvent::getFormattedMessage)
        .hasSize(4)
        .anySatisfy(m -> assertThat(m).startsWith("cache 'books': a read failed").contains("down"))
        .anySatisfy(m -> assertThat(m).startsWith("cache 'books': a write failed"))
        .anySatisfy(m -> assertThat(m).startsWith("cache 'authors': a read failed"))
        .anySatisfy(m -> assertThat(m).contains("UnsupportedOperationException"));
    assertThat(lines.list.stream().filter(e -> e.getLevel() == Level.DEBUG)).hasSize(4);
  }

  @Test
  void evictionsAndClearsStillFail() {
    ShardwiseCacheErrorHandler handler = new ShardwiseCacheErrorHandler();
    ConcurrentMapCache books = new ConcurrentMapCache("books");
    RuntimeException failure =
        new NodeException(
            Node.of("127.0.0.1", 11211), "delete timed out", new TimeoutException("no reply"));
    assertThatThrownBy(() -> handler.handleCacheEvictError(failure, books, 1)).isSameAs(failure);
    assertThatThrownBy(() -> handler.handleCacheClearError(failure, books)).isSameAs(failure);
    assertThat(handler.absorbedCount()).isZero();
  }
}
