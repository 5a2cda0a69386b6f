/** @svc/embed-react: the meeting room as a React component, on top of `@svc/embed`. */
import { SvcMeeting as EmbeddedMeeting, type EmbedReaction, type EmbedTheme, type SvcMeetingOptions } from '@svc/embed';
import { forwardRef, useEffect, useImperativeHandle, useRef, type CSSProperties } from 'react';

export type {
  EmbedEvent,
  EmbedEventType,
  EmbedEventMap,
  EmbedFeatures,
  EmbedTheme,
  EmbedLocale,
  EmbedErrorReason,
  EmbedSdkErrorReason,
  EmbedReaction,
  EmbedParticipant,
} from '@svc/embed';

/** The props of `<SvcMeeting>`: the options of `@svc/embed` (the component is the container) plus the container's `className` and `style`. */
export interface SvcMeetingProps extends Omit<SvcMeetingOptions, 'container'> {
  /** Class of the element the iframe fills. */
  className?: string;
  /** Style of the element the iframe fills (give it a height). */
  style?: CSSProperties;
}

/** What a ref to `<SvcMeeting>` offers: the room's commands (sent once the room is ready; nothing before mount or after unmount). */
export interface SvcMeetingHandle {
  /** Mutes the microphone, or the camera with `'video'`. */
  mute(kind?: 'audio' | 'video'): void;
  /** Unmutes the microphone, or the camera with `'video'`. */
  unmute(kind?: 'audio' | 'video'): void;
  /** Leaves the room. */
  leave(): void;
  /** Opens or closes the chat panel. */
  toggleChat(): void;
  /** Switches the room to `light`, `dark` or `system`. */
  setTheme(theme: EmbedTheme): void;
  /** Joins from the pre-join screen (see the `autoJoin` prop to do it as soon as the room is ready). */
  join(): void;
  /** Raises or lowers this participant's hand. */
  raiseHand(): void;
  lowerHand(): void;
  /** Sends one of the fixed reactions. */
  sendReaction(emoji: EmbedReaction): void;
}

/**
 * The meeting room in a `<div>`: creates the iframe after mount, destroys it on unmount, and recreates it when
 * the meeting, token, name, locale, features, base URL or ready timeout change. A new `theme` is sent to the running room; a new
 * `onEvent` is used without reloading.
 */
export const SvcMeeting = forwardRef<SvcMeetingHandle, SvcMeetingProps>(function SvcMeeting(props, ref) {
  const { baseUrl, meetingCode, joinToken, name, locale, theme, features, onEvent, readyTimeoutMs, autoJoin, className, style } = props;
  const containerRef = useRef<HTMLDivElement>(null);
  const meetingRef = useRef<EmbeddedMeeting | null>(null);
  const onEventRef = useRef(onEvent);
  const themeRef = useRef(theme);

  useEffect(() => {
    onEventRef.current = onEvent;
  }, [onEvent]);

  const chat = features?.chat;
  const participants = features?.participants;
  const screenshare = features?.screenshare;
  const hasFeatures = features !== undefined;
  useEffect(() => {
    const meeting = new EmbeddedMeeting({
      baseUrl,
      container: containerRef.current!,
      meetingCode,
      joinToken,
      name,
      locale,
      theme: themeRef.current,
      features: hasFeatures ? { chat, participants, screenshare } : undefined,
      onEvent: (event) => onEventRef.current?.(event),
      readyTimeoutMs,
      autoJoin,
    });
    meetingRef.current = meeting;
    return () => {
      meeting.destroy();
      if (meetingRef.current === meeting) meetingRef.current = null;
    };
    // `features` counts by its values, so a new object with the same values (a literal in the props) does not reload the room.
  }, [baseUrl, meetingCode, joinToken, name, locale, hasFeatures, chat, participants, screenshare, readyTimeoutMs, autoJoin]);

  useEffect(() => {
    if (theme === themeRef.current) return;
    themeRef.current = theme;
    meetingRef.current?.setTheme(theme ?? 'system');
  }, [theme]);

  useImperativeHandle(
    ref,
    () => ({
      mute: (kind) => meetingRef.current?.mute(kind),
      unmute: (kind) => meetingRef.current?.unmute(kind),
      leave: () => meetingRef.current?.leave(),
      toggleChat: () => meetingRef.current?.toggleChat(),
      setTheme: (next) => meetingRef.current?.setTheme(next),
      join: () => meetingRef.current?.join(),
      raiseHand: () => meetingRef.current?.raiseHand(),
      lowerHand: () => meetingRef.current?.lowerHand(),
      sendReaction: (emoji) => meetingRef.current?.sendReaction(emoji),
    }),
    [],
  );

  return <div ref={containerRef} className={className} style={style} />;
});
