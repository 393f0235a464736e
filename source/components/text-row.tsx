import {Text, type TextProps} from 'ink';
import type {Key, ReactElement} from 'react';

/**
 * One line of text on a row of its own. Ink gives an empty text no height, so a blank line (between
 * two paragraphs of one block, after a heading) vanished; it is drawn as an unstyled space, which
 * Ink trims from the row, so nothing is sent for it, whatever style the line would have had. A
 * function, not a component: the live region draws many lines every frame.
 */
export function textRow(key: Key, line: string, props: Omit<TextProps, 'children'> = {}): ReactElement {
  return line === '' ? <Text key={key}> </Text> : <Text key={key} {...props}>{line}</Text>;
}
