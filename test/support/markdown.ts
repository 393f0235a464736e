import {createMarkdownRenderer} from '../../source/components/markdown-render.js';
import {textTools} from '../../source/components/text-tools.js';

/** The renderer the app loads, with Ink's text tools as the app hands them over. */
export const renderMarkdown = createMarkdownRenderer(textTools);
