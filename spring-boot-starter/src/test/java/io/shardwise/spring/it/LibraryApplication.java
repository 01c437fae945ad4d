package io.shardwise.spring.it;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.cache.annotation.EnableCaching;
import org.springframework.context.annotation.Bean;

/** The application under test: auto-configuration, caching and a {@link Library}; nothing else. */
@SpringBootConfiguration
@EnableAutoConfiguration
@EnableCaching
public class LibraryApplication {

  @Bean
  Library library() {
    return new Library();
  }

  @Bean
  MeterRegistry meterRegistry() {
    return new SimpleMeterRegistry();
  }
}
