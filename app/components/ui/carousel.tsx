// The home page's banner carousel: slides of a picture and its words set as text, with Previous and Next slide.

import { startTransition, useEffect, useId, useState, useSyncExternalStore } from "react";
import { ChevronIcon } from "./icons";

export interface Slide {
  /** The picture: artwork only, its words are the slide's text below. */
  src: string;
  /** Widths of the same picture (the browser picks one for the carousel's width, which is the page's). */
  srcSet?: string;
  width: number;
  height: number;
  /** The short line above the headline. */
  eyebrow?: string;
  /** The headline's lines as a wide screen breaks them (a narrow one wraps them as one); together, the slide's name. */
  headline: readonly string[];
  subtitle?: string;
  /** A modifier class (`carousel__slide--{theme}`) that gives the slide its colours. */
  theme?: string;
}

/**
 * How wide the picture is drawn, for the browser's choice from srcSet: the page's width, and on a phone about twice
 * that, where app.css crops the picture to its right part, the artwork (`.carousel__picture`).
 */
const PICTURE_SIZES = "(max-width: 720px) 215vw, 100vw";

interface CarouselProps {
  label: string;
  slides: readonly Slide[];
  /** Time each slide stays before the next, in milliseconds. */
  intervalMs: number;
}

/**
 * A rotating banner following the WAI-ARIA carousel pattern (https://www.w3.org/WAI/ARIA/apg/patterns/carousel/):
 * it advances by itself and loops forever, stops while hovered or focused, never moves by itself when the
 * shopper asks for reduced motion, and has previous, next and pause buttons reachable from the keyboard.
 * Slides cross-fade in place, so looping from the last to the first needs no trickery. No dots, no "1 of 6".
 * A slide's words are text, not part of its picture: legible at any width, read out once (the picture is decorative,
 * alt=""), and named by its headline. On a wide screen they lie over the picture's empty left part, clear of the
 * arrows; on a phone they sit below the picture, and the buttons in a row below them (app.css).
 */
export function Carousel({ label, slides, intervalMs }: CarouselProps) {
  const [current, setCurrent] = useState(0);
  const [isHovered, setHovered] = useState(false);
  const [isFocused, setFocused] = useState(false);
  const [isStopped, setStopped] = useState(false);
  const prefersReducedMotion = usePrefersReducedMotion();
  // The buttons need the script: until it runs they are shown disabled rather than silently doing nothing.
  const isInteractive = useIsHydrated();
  const isRotating = !isHovered && !isFocused && !isStopped && !prefersReducedMotion;

  useEffect(() => {
    if (!isRotating) return;
    const timer = setInterval(() => setCurrent((index) => (index + 1) % slides.length), intervalMs);
    return () => clearInterval(timer);
  }, [isRotating, intervalMs, slides.length]);

  const idPrefix = useId();
  const show = (step: number) => setCurrent((index) => (index + step + slides.length) % slides.length);

  return (
    <section
      className="carousel"
      aria-roledescription="carousel"
      aria-label={label}
      onMouseEnter={() => setHovered(true)}
      onMouseLeave={() => setHovered(false)}
      onFocus={() => setFocused(true)}
      onBlur={(event) => {
        if (!event.currentTarget.contains(event.relatedTarget)) setFocused(false);
      }}
    >
      <div className="carousel__controls">
        <button
          type="button"
          className="carousel__button carousel__button--previous"
          aria-label="Previous slide"
          disabled={!isInteractive}
          onClick={() => show(-1)}
        >
          <ChevronIcon direction="left" />
        </button>
        <button
          type="button"
          className="carousel__button carousel__button--next"
          aria-label="Next slide"
          disabled={!isInteractive}
          onClick={() => show(1)}
        >
          <ChevronIcon direction="right" />
        </button>
        {prefersReducedMotion ? null : (
          <button
            type="button"
            className="carousel__rotation"
            disabled={!isInteractive}
            onClick={() => setStopped((stopped) => !stopped)}
          >
            {isStopped ? "Start slide rotation" : "Stop slide rotation"}
          </button>
        )}
      </div>
      <div className="carousel__slides" aria-live={isRotating ? "off" : "polite"}>
        {slides.map((slide, index) => {
          const isCurrent = index === current;
          const headingId = `${idPrefix}-heading-${index}`;
          return (
            <div
              key={slide.src}
              className={[
                "carousel__slide",
                isCurrent && "carousel__slide--current",
                slide.theme && `carousel__slide--${slide.theme}`,
              ]
                .filter(Boolean)
                .join(" ")}
              role="group"
              aria-roledescription="slide"
              aria-labelledby={headingId}
              aria-hidden={!isCurrent}
              inert={!isCurrent}
            >
              <div className="carousel__picture">
                {/* The first banner is the home page's largest paint. The others can only be shown by the script, so
                    they are drawn once it runs: fetched at load, they took bandwidth from the first (about 65 kB of a
                    phone's first 250 kB). */}
                {index === 0 || isInteractive ? (
                  <img
                    src={slide.src}
                    srcSet={slide.srcSet}
                    sizes={slide.srcSet ? PICTURE_SIZES : undefined}
                    width={slide.width}
                    height={slide.height}
                    alt=""
                    {...(index === 0 ? { fetchPriority: "high" } : { loading: "lazy", decoding: "async" })}
                  />
                ) : null}
              </div>
              <div className="carousel__caption">
                {slide.eyebrow ? <p className="carousel__eyebrow">{slide.eyebrow}</p> : null}
                <h2 id={headingId} className="carousel__headline">
                  {slide.headline.map((line, lineIndex) => (
                    // A space between the lines, so that the heading's name and a narrow screen's wrapping join them.
                    <span key={line} className="carousel__headline-line">
                      {lineIndex > 0 ? " " : null}
                      {line}
                    </span>
                  ))}
                </h2>
                {slide.subtitle ? <p className="carousel__subtitle">{slide.subtitle}</p> : null}
              </div>
            </div>
          );
        })}
      </div>
    </section>
  );
}

/** Set by the first carousel that hydrates: one mounted later (a client-side visit to /) starts interactive. */
let isPageHydrated = false;

/**
 * False on the server and while hydrating, true once this component runs in the browser. Not useSyncExternalStore
 * with a server snapshot: that forces a synchronous re-render right after hydration, one long task together with
 * the hydration's effects. As a transition the re-render (drawing five banners) is done in short slices.
 */
function useIsHydrated(): boolean {
  const [isHydrated, setHydrated] = useState(isPageHydrated);
  useEffect(() => {
    if (isHydrated) return;
    isPageHydrated = true;
    startTransition(() => setHydrated(true));
  }, [isHydrated]);
  return isHydrated;
}

const reducedMotionQuery = "(prefers-reduced-motion: reduce)";

function subscribeToReducedMotion(onChange: () => void) {
  const query = window.matchMedia(reducedMotionQuery);
  query.addEventListener("change", onChange);
  return () => query.removeEventListener("change", onChange);
}

/** The shopper's motion preference; the server assumes motion is fine and the browser corrects it at hydration. */
function usePrefersReducedMotion(): boolean {
  return useSyncExternalStore(
    subscribeToReducedMotion,
    () => window.matchMedia(reducedMotionQuery).matches,
    () => false,
  );
}
